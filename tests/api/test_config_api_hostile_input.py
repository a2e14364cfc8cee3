"""No input makes the configuration API or the YuniKorn reads answer 500: text no database can
store, numbers past every integer type, nesting past the JSON reader, odd paths. Each is a 4xx in
the contract's error shape, and nothing is stored."""

from __future__ import annotations

import json

import pytest

from quotaweb.config.models import ConfigVersion
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

QUEUES = "/api/v1/partitions/default/queues"
ENG = f"{QUEUES}/root.eng/"
HUGE = "9" * 40

BODIES = [
    (ENG, {"properties": {"note": "a\u0000b"}}),
    (ENG, {"properties": {"a\u0000": "b"}}),
    (ENG, {"max": {"memory\u0000": "1Gi"}}),
    (ENG, {"name": "eng\u0000"}),
    (ENG, {"submit_acl": "alice\u0000"}),
    (ENG, {"comment": "why\u0000"}),
    (ENG, {"child_template": {"properties": {"x": "\u0000"}}}),
    (ENG, {"child_template": {"maxapplications": 1.5, "resources": {"max": {"memory": [1]}}}}),
    (ENG, {"child_template": {"nested": [[[[{"a": None}]]]]}}),
    (ENG, {"max_applications": int(HUGE)}),
    (ENG, {"base_version": int(HUGE)}),
    (ENG, {"max": {"memory": int(HUGE)}}),
    (f"{ENG}limits/0/", {"description": "x\u0000"}),
    (f"{ENG}limits/0/", {"users": ["\u0000"]}),
    (f"{ENG}limits/0/", {"users": ["é" * 300, "*", "*"]}),
    (f"{ENG}limits/0/", {"max_resources": {"vcore": "1" * 200}}),
]


@pytest.mark.parametrize(("url", "body"), BODIES)
def test_hostile_values_are_4xx(admin_token, active_small, url, body):
    response = admin_token.patch(url, json.dumps(body), content_type="application/json")

    assert 400 <= response.status_code < 500, response.content
    assert set(response.json()) >= {"error", "message", "details"}
    assert ConfigVersion.objects.count() == 1


def test_a_lone_surrogate_is_400(admin_token, active_small):
    raw = b'{"properties": {"note": "\\ud800"}}'

    response = admin_token.patch(ENG, raw, content_type="application/json")

    assert response.status_code == 400
    assert ConfigVersion.objects.count() == 1


@pytest.mark.parametrize("raw", [
    b'{"yaml": "\\ud800"}', b'{"yaml": "a\\u0000"}', b'{"yaml": "x", "comment": "\\u0000"}',
])
def test_unstorable_text_in_a_whole_document_is_400(admin_token, active_small, raw):
    assert admin_token.put("/api/v1/config", raw, content_type="application/json").status_code \
        == 400


def test_a_nul_in_the_query_comment_is_400(admin_token, active_small):
    response = admin_token.put("/api/v1/config?comment=a%00b", SMALL_YAML.replace("100Gi", "9Gi"),
                               content_type="application/yaml")

    assert response.status_code == 400
    assert ConfigVersion.objects.count() == 1


@pytest.mark.parametrize("text", ["\x00", "a: \"\\ud800\"", "[" * 10_000, "partitions: &a [*a]"])
def test_hostile_yaml_documents_are_400(admin_token, active_small, text):
    response = admin_token.put("/api/v1/config", text.encode("utf-8", "surrogatepass"),
                               content_type="application/yaml")

    assert response.status_code in (400, 413), response.content
    assert ConfigVersion.objects.count() == 1


NUL_DESCRIPTION = SMALL_YAML.replace("limit: alice", 'limit: "ali\\0ce"')


def test_a_nul_escape_inside_a_yaml_string_is_refused(admin_token, active_small):
    response = admin_token.put("/api/v1/config", NUL_DESCRIPTION, content_type="application/yaml")

    assert response.status_code == 400


@pytest.mark.parametrize("url", [
    f"/api/v1/config/versions/{HUGE}", f"/api/v1/config/versions/1/diff?against={HUGE}",
    f"{ENG}limits/{HUGE}/", f"{QUEUES}/root.%00/", f"{QUEUES}/{'a.' * 2000}b/",
    "/api/v1/partitions/%00/queues/", f"/ws/v1/partition/{'p' * 5000}/queues",
    f"/ws/v1/partition/default/usage/user/{'u' * 5000}", "/ws/v1/partition/default/usage/user/%00",
    "/ws/v1/partition/default/usage/group/%C3%28",
])
def test_odd_paths_are_4xx(admin_token, active_small, url):
    response = admin_token.get(url)

    assert 400 <= response.status_code < 500, response.content


@pytest.mark.parametrize("if_match", [HUGE, "-1", "1, 2", "\"\"", "W/"])
def test_odd_preconditions_are_4xx(admin_token, active_small, if_match):
    response = admin_token.patch(ENG, json.dumps({"max_applications": 10}),
                                 content_type="application/json", HTTP_IF_MATCH=if_match)

    assert response.status_code in (400, 412)
    assert ConfigVersion.objects.count() == 1


def test_a_rollback_with_a_huge_base_version_is_4xx(admin_token, active_small):
    response = admin_token.post(f"/api/v1/config/versions/{HUGE}/rollback",
                                content_type="application/json")

    assert response.status_code == 404

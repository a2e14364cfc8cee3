"""Configuration versions over the API: the history newest first and paginated, one version with
its YAML, a diff between two (unified text and structured changes), and rollback as a new
version with exactly the old content (412 on a stale precondition, 404 for an unknown version)."""

from __future__ import annotations

import json

import pytest

from quotaweb.config.models import ConfigVersion
from quotaweb.config.selectors import active_version_number
from quotaweb.config.services import ROLLBACK_COMMENT, config_apply
from quotaweb.engine.gateway import engines_get
from tests.api.allocation_support import GiB
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

VERSIONS = "/api/v1/config/versions"
V2 = SMALL_YAML.replace("100Gi", "120Gi")
V3 = V2.replace("{memory: 60Gi}", "{memory: 50Gi}")


@pytest.fixture
def history(active_small, admin):
    """Version 1 (SMALL_YAML), 2 (eng max 120Gi, by ada), 3 (ml group 50Gi)."""
    config_apply(yaml_text=V2, author=admin, comment="more room", base_version=1)
    config_apply(yaml_text=V3, author=None, comment="ml shares", base_version=2)
    return active_small


def test_versions_are_listed_newest_first(viewer_token, history):
    response = viewer_token.get(VERSIONS)

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    assert [v["version"] for v in body["results"]] == [3, 2, 1]
    v2 = body["results"][1]
    assert v2["author"] == "ada"
    assert v2["comment"] == "more room"
    assert v2["checksum"] == ConfigVersion.objects.get(number=2).checksum
    assert v2["based_on"] == 1
    assert {"version", "created", "author", "comment", "checksum"} <= set(v2)
    assert "yaml" not in v2


def test_versions_are_paginated(viewer_token, history):
    first = viewer_token.get(VERSIONS + "?page_size=2").json()
    second = viewer_token.get(first["next"]).json()

    assert [v["version"] for v in first["results"]] == [3, 2]
    assert [v["version"] for v in second["results"]] == [1]
    assert second["next"] is None


def test_a_page_past_the_end_is_404(viewer_token, history):
    response = viewer_token.get(VERSIONS + "?page=9")

    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_one_version_has_its_yaml(viewer_token, history):
    response = viewer_token.get(f"{VERSIONS}/2")

    assert response.status_code == 200
    body = response.json()
    assert body["version"] == 2
    assert body["yaml"] == V2
    assert body["active"] is False
    assert viewer_token.get(f"{VERSIONS}/3").json()["active"] is True


@pytest.mark.parametrize("number", ["9", "abc", "-1", "0"])
def test_an_unknown_version_is_404_in_json(viewer_token, history, number):
    response = viewer_token.get(f"{VERSIONS}/{number}")

    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_diff_against_a_named_version(viewer_token, history):
    response = viewer_token.get(f"{VERSIONS}/3/diff?against=1")

    assert response.status_code == 200
    body = response.json()
    assert (body["version"], body["against"]) == (3, 1)
    assert body["unified"].startswith("--- version 1\n+++ version 3\n")
    assert "-              max: {memory: 100Gi, vcore: \"100\"}" in body["unified"]
    assert "+              max: {memory: 120Gi, vcore: \"100\"}" in body["unified"]
    assert [(c["kind"], c["change"], c["queuePath"], c.get("index")) for c in body["changes"]] == [
        ("queue", "changed", "root.eng", None),
        ("limit", "changed", "root.eng", 2),
    ]
    limit = body["changes"][1]
    assert limit["old"]["max_resources"] == {"memory": "60Gi"}
    assert limit["new"]["max_resources"] == {"memory": "50Gi"}


def test_diff_defaults_to_the_version_before(viewer_token, history):
    body = viewer_token.get(f"{VERSIONS}/3/diff").json()

    assert body["against"] == 2
    assert [c["kind"] for c in body["changes"]] == ["limit"]


def test_diff_of_the_first_version_needs_against(viewer_token, history):
    assert viewer_token.get(f"{VERSIONS}/1/diff").status_code == 400
    assert viewer_token.get(f"{VERSIONS}/1/diff?against=3").status_code == 200


@pytest.mark.parametrize(("query", "status"), [("?against=x", 400), ("?against=9", 404)])
def test_diff_against_a_bad_or_unknown_version(viewer_token, history, query, status):
    assert viewer_token.get(f"{VERSIONS}/3/diff{query}").status_code == status


def test_rollback_makes_a_new_version_with_the_old_content_and_applies_it(
    admin_token, admin, history
):
    response = admin_token.post(f"{VERSIONS}/1/rollback", content_type="application/json")

    assert response.status_code == 200
    body = response.json()
    assert body["version"] == 4
    assert body["author"] == admin.username
    assert body["comment"] == ROLLBACK_COMMENT.format(number=1)
    assert body["impact"] == []
    assert ConfigVersion.objects.get(number=4).yaml == SMALL_YAML
    assert active_version_number() == 4
    ml = engines_get().group_usage("default", "ml")
    assert ml["queues"]["children"][0]["maxResources"] == {"memory": 60 * GiB}


def test_rollback_with_a_comment_and_matching_if_match(admin_token, history):
    response = admin_token.post(f"{VERSIONS}/2/rollback", json.dumps({"comment": "undo ml"}),
                                content_type="application/json", HTTP_IF_MATCH="3")

    assert response.status_code == 200
    assert response.json()["comment"] == "undo ml"
    assert ConfigVersion.objects.get(number=4).yaml == V2


@pytest.mark.parametrize("precondition", [{"HTTP_IF_MATCH": "2"}, {"body": {"base_version": 2}}])
def test_rollback_from_a_stale_version_is_412(admin_token, history, precondition):
    body = precondition.pop("body", None)
    response = admin_token.post(
        f"{VERSIONS}/1/rollback", json.dumps(body) if body else None,
        content_type="application/json", **precondition,
    )

    assert response.status_code == 412
    assert response.json()["active_version"] == 3
    assert [c["kind"] for c in response.json()["details"]] == ["limit"]
    assert ConfigVersion.objects.count() == 3


def test_rollback_to_an_unknown_version_is_404(admin_token, history):
    response = admin_token.post(f"{VERSIONS}/9/rollback", content_type="application/json")

    assert response.status_code == 404
    assert ConfigVersion.objects.count() == 3


def test_rollback_to_the_active_content_makes_no_version(admin_token, history):
    response = admin_token.post(f"{VERSIONS}/3/rollback", content_type="application/json")

    assert response.status_code == 200
    assert response.json()["version"] == 3
    assert ConfigVersion.objects.count() == 3


def test_rollback_refuses_unknown_fields(admin_token, history):
    response = admin_token.post(f"{VERSIONS}/1/rollback", json.dumps({"version": 2}),
                                content_type="application/json")

    assert response.status_code == 400
    assert "unknown fields: version" in response.json()["message"]


@pytest.mark.parametrize("query", [
    "page_size=null", "page_size=0", "page_size=501", "page_size=1.5", "page=null", "page=0",
    "page=%C2%B2",
])
def test_a_bad_page_or_page_size_is_400(viewer_token, history, query):
    response = viewer_token.get(f"{VERSIONS}?{query}")

    assert response.status_code == 400
    assert response.json()["error"] == "bad_request"


def test_a_non_ascii_digit_version_is_404(viewer_token, history):
    assert viewer_token.get(f"{VERSIONS}/%C2%B2").status_code == 404

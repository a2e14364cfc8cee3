"""Who may call the configuration API and the YuniKorn reads: 401 without credentials (with the
``WWW-Authenticate: Token`` challenge), DRF tokens and browser sessions (with CSRF), viewers read
and validate but every write of theirs is 403, ``QUOTAWEB_PUBLIC_READ`` opens only the reads."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from quotaweb.api.permissions import ERR_WRITE_NEEDS_ADMIN
from quotaweb.config.models import ConfigVersion
from tests.configs import SMALL_YAML
from tests.personas import token_client

pytestmark = pytest.mark.django_db

TIGHTER = SMALL_YAML.replace("100Gi", "90Gi")
QUEUES = "/api/v1/partitions/default/queues"

API_READS = [
    "/api/v1/config", "/api/v1/config/versions", "/api/v1/config/versions/1",
    "/api/v1/config/versions/1/diff?against=1", f"{QUEUES}/", f"{QUEUES}/root.eng/",
    f"{QUEUES}/root.eng/limits/", f"{QUEUES}/root.eng/limits/0/",
]
YUNIKORN_READS = [
    "/ws/v1/partitions", "/ws/v1/partition/default/queues",
    "/ws/v1/partition/default/usage/users", "/ws/v1/partition/default/usage/groups",
    "/ws/v1/partition/default/usage/user/alice", "/ws/v1/partition/default/usage/group/ml",
    "/ws/v1/config",
]
# (method, path, JSON body): one of each write the API has.
WRITES = [
    ("put", "/api/v1/config", {"yaml": TIGHTER}),
    ("post", "/api/v1/config/versions/1/rollback", {}),
    ("post", f"{QUEUES}/", {"name": "web"}),
    ("patch", f"{QUEUES}/root.eng/", {"max_applications": 10}),
    ("delete", f"{QUEUES}/root.eng/", {}),
    ("post", f"{QUEUES}/root.eng/limits/", {"users": ["bob"], "max_applications": 1}),
    ("patch", f"{QUEUES}/root.eng/limits/0/", {"max_applications": 1}),
    ("delete", f"{QUEUES}/root.eng/limits/0/", {}),
]


def _write(client, method, url, body):
    return getattr(client, method)(url, json.dumps(body), content_type="application/json")


@pytest.mark.parametrize("url", API_READS)
def test_api_reads_without_credentials_are_401_with_a_token_challenge(outsider, active_small, url):
    response = outsider.get(url)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["error"] == "not_authenticated"


@pytest.mark.parametrize(("method", "url", "body"), WRITES)
def test_api_writes_without_credentials_are_401(outsider, active_small, method, url, body):
    response = _write(outsider, method, url, body)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert ConfigVersion.objects.count() == 1


@pytest.mark.parametrize("url", YUNIKORN_READS)
def test_yunikorn_reads_without_credentials_are_401_in_yunikorn_shape(outsider, active_small, url):
    response = outsider.get(url)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert set(response.json()) == {"status_code", "message", "description"}
    assert response.json()["status_code"] == 401


def test_validate_conf_without_credentials_is_401(outsider, active_small):
    response = outsider.post("/ws/v1/validate-conf", SMALL_YAML, content_type="application/yaml")

    assert response.status_code == 401


@pytest.mark.parametrize("header", ["Token not-a-real-key", "Token", "Bearer abc"])
def test_a_bad_token_is_401(active_small, header):
    response = Client(HTTP_AUTHORIZATION=header).get("/api/v1/config")

    assert response.status_code == 401


def test_the_token_of_an_inactive_account_is_401(viewer, active_small):
    client = token_client(viewer)
    viewer.is_active = False
    viewer.save()

    assert client.get("/api/v1/config").status_code == 401


@pytest.mark.parametrize("url", API_READS + YUNIKORN_READS)
def test_a_viewer_token_reads_everything(viewer_token, active_small, url):
    assert viewer_token.get(url).status_code == 200


def test_a_viewer_may_validate_a_document(viewer_token, active_small):
    response = viewer_token.post("/ws/v1/validate-conf", SMALL_YAML,
                                 content_type="application/yaml")

    assert response.status_code == 200
    assert response.json() == {"allowed": True}


@pytest.mark.parametrize(("method", "url", "body"), WRITES)
def test_every_viewer_write_is_403_and_changes_nothing(viewer, viewer_token, active_small,
                                                       method, url, body):
    response = _write(viewer_token, method, url, body)

    assert response.status_code == 403
    assert response.json() == {
        "error": "forbidden",
        "message": ERR_WRITE_NEEDS_ADMIN.format(username=viewer.username,
                                                method=method.upper()),
        "details": [],
    }
    assert ConfigVersion.objects.count() == 1


@pytest.mark.parametrize(("method", "url", "body"), WRITES)
def test_every_write_works_for_an_admin_token(admin_token, active_small, method, url, body):
    response = _write(admin_token, method, url, body)

    assert response.status_code in (200, 201)


def test_a_staff_admin_outside_the_group_writes_too(staff_admin, active_small):
    response = _write(token_client(staff_admin), "put", "/api/v1/config", {"yaml": TIGHTER})

    assert response.status_code == 200
    assert ConfigVersion.objects.get(number=2).author == staff_admin


def test_a_session_write_needs_the_csrf_token(admin, active_small):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    secret = "a" * 32
    client.cookies["csrftoken"] = secret

    refused = client.put("/api/v1/config", TIGHTER, content_type="application/yaml")
    accepted = client.put("/api/v1/config", TIGHTER, content_type="application/yaml",
                          HTTP_X_CSRFTOKEN=secret)

    assert refused.status_code == 403
    assert "CSRF" in refused.json()["message"]
    assert accepted.status_code == 200
    assert ConfigVersion.objects.count() == 2


def test_a_session_reads_without_csrf(viewer, active_small):
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)

    assert client.get("/api/v1/config").status_code == 200


@pytest.mark.parametrize("url", YUNIKORN_READS)
def test_public_read_opens_the_yunikorn_reads_to_anyone(outsider, active_small, settings, url):
    settings.QUOTAWEB_PUBLIC_READ = True

    assert outsider.get(url).status_code == 200


def test_public_read_opens_validate_conf_but_nothing_of_api_v1(outsider, active_small, settings):
    settings.QUOTAWEB_PUBLIC_READ = True

    validated = outsider.post("/ws/v1/validate-conf", SMALL_YAML, content_type="application/yaml")

    assert validated.status_code == 200
    assert validated.json() == {"allowed": True}
    assert outsider.get("/api/v1/config").status_code == 401
    assert _write(outsider, "put", "/api/v1/config", {"yaml": TIGHTER}).status_code == 401
    assert ConfigVersion.objects.count() == 1

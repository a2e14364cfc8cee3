"""The /ws/v1/ reads added for YuniKorn's web UI keep the rules of the others: a login (or a
token) is needed unless ``QUOTAWEB_PUBLIC_READ`` is on, writes are refused, and a read that
needs the engines answers 503 (never 500) while they start."""

from __future__ import annotations

import pytest

from quotaweb.engine.gateway import ERR_NOT_LOADED

pytestmark = pytest.mark.django_db

READS = [
    "/ws/v1/clusters",
    "/ws/v1/partition/default/queue/root.eng",
    "/ws/v1/partition/default/queue/root.eng/applications",
    "/ws/v1/partition/default/queue/root.eng/application/app-1",
    "/ws/v1/partition/default/application/app-1",
    "/ws/v1/partition/default/applications/active",
    "/ws/v1/partition/default/applications/completed",
    "/ws/v1/partition/default/nodes",
    "/ws/v1/scheduler/node-utilizations",
    "/ws/v1/history/apps",
    "/ws/v1/history/containers",
    "/ws/v1/scheduler/healthcheck",
]
NEEDS_ENGINES = [url for url in READS if "node-utilizations" not in url and "health" not in url]


@pytest.mark.parametrize("url", READS)
def test_anonymous_callers_must_log_in(client, capped_engines, url):
    response = client.get(url)

    assert response.status_code == 401
    assert response.json()["status_code"] == 401


@pytest.mark.parametrize("url", READS)
def test_public_read_opens_them(client, capped_engines, settings, url):
    settings.QUOTAWEB_PUBLIC_READ = True

    # app-1 has no live allocation here: its two routes answer YuniKorn's 404, the rest 200.
    assert client.get(url).status_code == (404 if url.endswith("app-1") else 200)


@pytest.mark.parametrize("url", READS)
def test_writes_are_refused(admin_token, capped_engines, url):
    response = admin_token.post(url)

    assert response.status_code == 405
    assert response.json()["status_code"] == 405


@pytest.mark.parametrize("url", NEEDS_ENGINES)
def test_before_the_engines_exist_reads_are_503(viewer_token, url):
    response = viewer_token.get(url)

    assert response.status_code == 503
    assert response.json() == {
        "status_code": 503, "message": ERR_NOT_LOADED, "description": ERR_NOT_LOADED,
    }

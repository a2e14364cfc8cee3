"""``/ws/v1/clusters`` carries ``rmBuildInformation`` as yunikorn-core sends it (a list of string
maps) with quotaweb's own build: the installed package's version, the build date and commit the
packager set (else the install date and the commit pip recorded), ``isPluginVersion`` "false"
and the cluster's ``rmId``. YuniKorn's web UI shows the first entry on its dashboard."""

from __future__ import annotations

import re
from importlib import metadata

import pytest

from quotaweb.api import build_info

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_reading():
    build_info._installed.cache_clear()
    yield
    build_info._installed.cache_clear()


def _build(client) -> dict:
    [cluster] = client.get("/ws/v1/clusters").json()
    info = cluster["rmBuildInformation"]
    assert type(info) is list
    assert all(type(value) is str for entry in info for value in entry.values())
    return info[0]


def test_the_build_is_quotawebs(viewer_token, capped_engines):
    build = _build(viewer_token)

    assert build["buildVersion"] == metadata.version("quotaweb")
    assert build["isPluginVersion"] == "false"
    assert build["rmId"] == "quotaweb"
    assert re.fullmatch(r"\d+\.\d+\.\d+", build["pythonVersion"])
    # YuniKorn's format, from the package's install when the packager set no date.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}", build["buildDate"])


def test_the_packager_names_the_date_and_commit(viewer_token, capped_engines, settings):
    settings.QUOTAWEB_BUILD_DATE = "2026-11-27T10:00:00+0000"
    settings.QUOTAWEB_BUILD_COMMIT = "d9e3985"

    build = _build(viewer_token)

    assert build["buildDate"] == "2026-11-27T10:00:00+0000"
    assert build["buildCommit"] == "d9e3985"


def test_every_partition_carries_it(viewer_token, db):
    from tests.api.yunikorn_support import HIERARCHY_YAML
    from tests.configs import store_and_load

    store_and_load(HIERARCHY_YAML)

    clusters = viewer_token.get("/ws/v1/clusters").json()

    assert [cluster["partition"] for cluster in clusters] == ["default", "gpu"]
    assert clusters[0]["rmBuildInformation"] == clusters[1]["rmBuildInformation"]

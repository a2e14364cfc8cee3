"""``/metrics`` exports min, max, runtime, used and request of every queue and resource of a
partition that uses elastic quota (switched on, or given a cluster total)."""

from __future__ import annotations

import pytest

from tests.elastic.support import k1
from tests.exposition import scrape

pytestmark = pytest.mark.django_db


def _value(exposition, queue: str, field: str) -> float | None:
    return exposition.value("quotaweb_elastic_quota", partition="default", queue=queue,
                            resource="gpu", field=field)


def test_each_queue_and_resource_is_exported(admin_api, active_elastic, client):
    assert scrape(client).samples("quotaweb_elastic_quota") == []

    k1(admin_api)
    exposition = scrape(client)
    assert exposition.type_of("quotaweb_elastic_quota") == "gauge"
    for field, value in (("min", 15), ("max", 80), ("runtime", 40), ("used", 0),
                         ("request", 70)):
        assert _value(exposition, "root.d", field) == value
    assert _value(exposition, "root", "runtime") == 100

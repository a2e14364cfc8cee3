"""``/metrics`` exports min, max, runtime, used and request of every queue and resource of a
partition that uses elastic quota (switched on, or given a cluster total)."""

from __future__ import annotations

import pytest

from tests.elastic.support import k1

pytestmark = pytest.mark.django_db


def _sample(queue: str, field: str) -> str:
    return (f'quotaweb_elastic_quota{{partition="default",queue="{queue}",resource="gpu",'
            f'field="{field}"}}')


def test_each_queue_and_resource_is_exported(admin_api, active_elastic, client):
    lines = client.get("/metrics").content.decode().splitlines()
    assert not [line for line in lines if line.startswith("quotaweb_elastic_quota{")]

    k1(admin_api)
    lines = client.get("/metrics").content.decode().splitlines()
    assert "# TYPE quotaweb_elastic_quota gauge" in lines
    for field, value in (("min", 15), ("max", 80), ("runtime", 40), ("used", 0),
                         ("request", 70)):
        assert f"{_sample('root.d', field)} {value}" in lines
    assert f"{_sample('root', 'runtime')} 100" in lines

"""``/ws/v1/history/apps`` and ``/ws/v1/history/containers``: one entry per usage sampling pass
(``quotaweb.usage.services.usage_sample``), oldest first, with YuniKorn's shapes: ``timestamp``
in nanoseconds (an integer) and the totals as text, summed over the partitions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from quotaweb.usage.models import UsageSample
from quotaweb.usage.services import usage_sample
from tests.api.allocation_support import GiB, body
from tests.api.yunikorn_support import HIERARCHY_YAML
from tests.configs import store_and_load

pytestmark = pytest.mark.django_db

APPS = "/ws/v1/history/apps"
CONTAINERS = "/ws/v1/history/containers"
FIRST = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)
FIRST_NS = 1772366400123456000


def _allocate(client, key: str, app: str, partition: str = "default", queue: str = "root.eng"):
    response = client.post(
        f"/api/v1/partitions/{partition}/allocations",
        body(key, app=app, queue=queue, memory=GiB), format="json",
    )
    assert response.status_code == 201, response.json()


def test_no_samples_no_history(viewer_token, capped_engines):
    assert viewer_token.get(APPS).json() == []
    assert viewer_token.get(CONTAINERS).json() == []


def test_a_sample_is_an_entry_with_the_running_applications_and_live_allocations(
    admin_api, viewer_token, capped_engines
):
    _allocate(admin_api, "k1", "app-1")
    _allocate(admin_api, "k2", "app-1")
    _allocate(admin_api, "k3", "app-2")
    usage_sample(now=FIRST)

    apps = viewer_token.get(APPS)
    containers = viewer_token.get(CONTAINERS)

    assert apps.status_code == containers.status_code == 200
    assert apps.json() == [{"timestamp": FIRST_NS, "totalApplications": "2"}]
    assert containers.json() == [{"timestamp": FIRST_NS, "totalContainers": "3"}]


def test_entries_are_oldest_first_and_follow_the_usage(admin_api, viewer_token, capped_engines):
    _allocate(admin_api, "k1", "app-1")
    usage_sample(now=FIRST)
    _allocate(admin_api, "k2", "app-2")
    usage_sample(now=FIRST + timedelta(minutes=1))
    admin_api.delete("/api/v1/partitions/default/applications/app-2")
    usage_sample(now=FIRST + timedelta(minutes=2))

    apps = viewer_token.get(APPS).json()
    containers = viewer_token.get(CONTAINERS).json()

    assert [entry["timestamp"] for entry in apps] == [
        FIRST_NS, FIRST_NS + 60 * 10**9, FIRST_NS + 120 * 10**9,
    ]
    assert [entry["totalApplications"] for entry in apps] == ["1", "2", "1"]
    assert [entry["totalContainers"] for entry in containers] == ["1", "2", "1"]


def test_totals_add_up_over_the_partitions(admin_api, viewer_token, db):
    store_and_load(HIERARCHY_YAML)
    _allocate(admin_api, "k1", "app-1", queue="root.free")
    _allocate(admin_api, "k2", "app-2", partition="gpu", queue="root.training")
    _allocate(admin_api, "k3", "app-2", partition="gpu", queue="root.training")
    usage_sample(now=FIRST)

    assert viewer_token.get(APPS).json() == [{"timestamp": FIRST_NS, "totalApplications": "2"}]
    assert viewer_token.get(CONTAINERS).json() == [{"timestamp": FIRST_NS, "totalContainers": "3"}]


def test_the_root_sample_keeps_the_live_allocations(admin_api, capped_engines):
    _allocate(admin_api, "k1", "app-1")
    _allocate(admin_api, "k2", "app-1")
    usage_sample(now=FIRST)

    samples = {s.name: s.allocations for s in UsageSample.objects.filter(kind="queue")}

    assert samples == {"root": 2, "root.eng": 0}

"""Usage sampling: trend samples per user, group and queue, kept for the configured days, CSV
rows, and the over-limit list with the time each entry was first seen."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from quotaweb.allocations import services as allocations
from quotaweb.allocations.services import allocation_request
from quotaweb.config.services import config_apply
from quotaweb.usage import selectors, services
from quotaweb.usage.models import OverLimit, UsageSample
from tests.api.allocation_support import GiB, body
from tests.configs import CAPPED_YAML

pytestmark = pytest.mark.django_db


def _allocate(key: str, **kwargs) -> None:
    admission = allocations.allocation_create(
        partition="default", request=allocation_request(body(key, **kwargs))
    )
    assert admission.allowed


def test_samples_follow_usage_of_users_groups_and_queues(capped_engines):
    start = timezone.now()
    _allocate("a", memory=GiB)
    assert services.usage_sample(now=start) == 4  # alice, ml, root, root.eng
    _allocate("b", memory=2 * GiB, app="app-2")
    services.usage_sample(now=start + timedelta(minutes=1))
    trend = selectors.usage_trend(partition="default", kind="user", name="alice")
    assert [(s["resource"], s["running"]) for s in trend] == [
        ({"memory": GiB}, 1), ({"memory": 3 * GiB}, 2)
    ]
    queue = selectors.usage_trend(partition="default", kind="queue", name="root.eng")
    assert [s["resource"]["memory"] for s in queue] == [GiB, 3 * GiB]
    assert selectors.trend_csv_rows(trend) == [
        ["time", "memory_bytes", "running_applications"],
        [start.isoformat(), str(GiB), "1"],
        [(start + timedelta(minutes=1)).isoformat(), str(3 * GiB), "2"],
    ]


@override_settings(QUOTAWEB_TREND_DAYS=2)
def test_samples_older_than_the_kept_days_are_dropped(capped_engines):
    _allocate("a")
    now = timezone.now()
    services.usage_sample(now=now - timedelta(days=3))
    services.usage_sample(now=now)
    ages = {sample.at for sample in UsageSample.objects.all()}
    assert ages == {now}


def test_the_over_limit_list_keeps_when_it_started_and_empties_when_back_under(capped_engines):
    _allocate("a", memory=8 * GiB)
    first = timezone.now()
    services.usage_sample(now=first)
    assert OverLimit.objects.count() == 0
    config_apply(yaml_text=CAPPED_YAML.replace("maxresources: {memory: 10Gi}",
                                               "maxresources: {memory: 4Gi}"),
                 author=None, base_version=1)
    services.usage_sample(now=first + timedelta(minutes=1))
    services.usage_sample(now=first + timedelta(minutes=2))
    (row,) = selectors.over_limit_list(partition="default")
    assert (row.kind, row.name, row.queue_path) == ("user", "alice", "root.eng")
    assert row.since == first + timedelta(minutes=1)
    assert row.seen == first + timedelta(minutes=2)
    assert row.usage == {"memory": 8 * GiB}
    assert row.limit == {"memory": 4 * GiB}
    allocations.allocation_release(partition="default", key="a")
    services.usage_sample(now=first + timedelta(minutes=3))
    assert selectors.over_limit_list(partition="default") == []


@pytest.mark.django_db(transaction=True)
@override_settings(QUOTAWEB_TREND_SAMPLE_SECONDS=1)
def test_the_sampler_thread_samples_until_stopped(capped_engines):
    import threading

    from quotaweb.usage.sampler import sampler_start

    _allocate("a")
    stop = threading.Event()
    thread = sampler_start(stop=stop)
    deadline = timezone.now() + timedelta(seconds=10)
    while not UsageSample.objects.exists() and timezone.now() < deadline:
        stop.wait(0.1)
    stop.set()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert UsageSample.objects.filter(kind="user", name="alice").exists()

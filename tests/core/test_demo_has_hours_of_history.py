"""The demo starts with a few hours of history, so the accounting page is not empty on a first
look; the live engines and the ledger are left as they were."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from quotaweb.allocations.models import Allocation, HistoryEvent
from quotaweb.core.demo_history import SEED_HOURS, demo_history_seed
from quotaweb.usage.accounting import accounting_query, accounting_report

pytestmark = pytest.mark.django_db


def test_the_demo_seeds_hours_of_history_once(active_sample):
    lines: list[str] = []
    demo_history_seed(write=lines.append, rate=0.5)
    partitions = active_sample.partitions()
    assert len(lines) == len(partitions)
    oldest = HistoryEvent.objects.order_by("at").first()
    assert oldest.at < timezone.now() - timedelta(hours=SEED_HOURS - 1)
    kinds = set(HistoryEvent.objects.values_list("kind", flat=True))
    assert kinds == {"admitted", "released", "denied"}
    assert not Allocation.objects.exists()
    report = accounting_report(query=accounting_query(
        partition=partitions[0], params={"by": "user", "step": "hour"}
    ))
    assert report["rows"]
    assert sum(row["allocations"] for row in report["rows"]) > 0
    demo_history_seed(write=lines.append, rate=0.5)
    assert len(lines) == len(partitions)

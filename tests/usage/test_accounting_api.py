"""The accounting API: every admission and release the ledger stored is in the history, and the
report adds it up (JSON and CSV with units); bad parameters are 400s that name them."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest

from quotaweb.allocations.history import DenialWriter
from quotaweb.allocations.models import HistoryEvent
from quotaweb.engine.live import denials_to
from quotaweb.usage import accounting
from quotaweb.usage.rollups import history_prune, history_upkeep
from tests.api.allocation_support import ALLOCATIONS, GiB, body

pytestmark = pytest.mark.django_db

ACCOUNTING = "/api/v1/partitions/default/accounting"


def _release(client, key: str) -> None:
    assert client.delete(f"{ALLOCATIONS}/{key}").status_code in (200, 204)


def test_admissions_releases_and_denials_are_kept_in_order(admin_api, capped_engines):
    writer = DenialWriter()
    denials_to(writer.offer)
    try:
        admitted = admin_api.post(ALLOCATIONS, body("k1", memory=8 * GiB), format="json")
        denied = admin_api.post(ALLOCATIONS, body("k2", memory=4 * GiB), format="json")
        assert (admitted.status_code, denied.status_code) == (201, 409)
        _release(admin_api, "k1")
        writer.write_queued()
    finally:
        denials_to(None)
    kinds = list(HistoryEvent.objects.order_by("id").values_list("kind", "key", "reason"))
    assert kinds == [("admitted", "k1", ""), ("released", "k1", ""), ("denied", "k2", "userQuota")]
    released = HistoryEvent.objects.get(kind="released")
    assert released.started is not None
    assert released.at >= released.started
    assert (released.user, released.queue_path, released.resource) == (
        "alice", "root.eng", {"memory": 8 * GiB})


def test_the_report_counts_open_and_finished_allocations(admin_api, capped_engines):
    admin_api.post(ALLOCATIONS, body("k1", memory=2 * GiB), format="json")
    admin_api.post(ALLOCATIONS, body("k2", user="bob", memory=GiB, app="app-2"), format="json")
    _release(admin_api, "k1")
    for folded in (False, True):
        if folded:
            history_upkeep(partitions=["default"])
        answer = admin_api.get(ACCOUNTING, {"by": "user", "step": "hour"})
        assert answer.status_code == 200, answer.content
        report = answer.json()
        assert report["units"] == {"memory": "GiB-hours"}
        rows = {row["key"]: row for row in report["rows"]}
        assert set(rows) == {"alice", "bob"}
        assert rows["alice"]["allocations"] == rows["bob"]["allocations"] == 1
        assert rows["alice"]["applications"] == 1
        assert rows["bob"]["usage"]["memory"] > 0


def test_csv_carries_units_in_its_header(admin_api, capped_engines):
    admin_api.post(ALLOCATIONS, body("k1"), format="json")
    for extra in ({"format": "csv"}, {}):
        headers = {} if extra else {"HTTP_ACCEPT": "text/csv"}
        answer = admin_api.get(ACCOUNTING, {"by": "queue", **extra}, **headers)
        assert answer.status_code == 200, answer.content
        assert answer["Content-Type"].startswith("text/csv")
        lines = list(csv.reader(io.StringIO(answer.content.decode())))
        assert lines[0] == ["queue", "bucket_start", "memory (GiB-hours)"]
        assert lines[1][0] == "root.eng"


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize(("params", "parameter"), [
    ({"from": "2026-13-45"}, "from"),
    ({"to": "yesterday"}, "to"),
    ({"from": "2026-01-02", "to": "2026-01-01"}, "to"),
    ({"by": "colour"}, "by"),
    ({"step": "fortnight"}, "step"),
    ({"top": "0"}, "top"),
    ({"top": "1e3"}, "top"),
    ({"user": "nobody"}, "user"),
    ({"group": "nobody"}, "group"),
    ({"queue": "root.nowhere"}, "queue"),
    ({"resource": "gpu"}, "resource"),
    ({"format": "xml"}, "format"),
])
def test_bad_parameters_are_400_naming_them(admin_api, capped_engines, params, parameter):
    admin_api.post(ALLOCATIONS, body("k1"), format="json")
    answer = admin_api.get(ACCOUNTING, params)
    assert answer.status_code == 400, answer.content
    assert answer.json()["details"][0]["field"] == parameter
    assert answer.json()["message"].startswith(parameter + ": ")


def test_empty_old_and_too_long_periods_are_400(admin_api, capped_engines):
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    cases = [
        ({"from": _iso(now), "to": _iso(now)}, "to", "empty"),
        ({"from": _iso(now - timedelta(days=400))}, "from", "beyond the history kept"),
        ({"from": _iso(now - timedelta(days=80)), "step": "hour"}, "to", "at most"),
    ]
    for params, parameter, words in cases:
        answer = admin_api.get(ACCOUNTING, params)
        assert answer.status_code == 400, answer.content
        assert answer.json()["details"][0]["field"] == parameter
        assert words in answer.json()["message"]


def test_an_unknown_partition_is_400(admin_api, capped_engines):
    answer = admin_api.get("/api/v1/partitions/nowhere/accounting")
    assert answer.status_code == 400
    assert answer.json()["message"] == "partition: " + accounting.ERR_PARTITION.format(
        value="nowhere")


def test_options_asking_for_csv_is_described_in_json(admin_api, capped_engines):
    answer = admin_api.options(ACCOUNTING + "?format=csv")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("application/json")


# Committed for real: on PostgreSQL nothing is folded while an older transaction (a test's own
# wrapping one) still runs.
@pytest.mark.django_db(transaction=True)
def test_history_past_the_retention_is_pruned_once_folded(admin_api, capped_engines, settings):
    admin_api.post(ALLOCATIONS, body("k1"), format="json")
    _release(admin_api, "k1")
    later = datetime.now(UTC) + timedelta(days=settings.QUOTAWEB_HISTORY_DAYS + 1)
    assert history_prune(partition="default", now=later) == 0  # not folded yet: kept
    history_upkeep(partitions=["default"])
    assert history_prune(partition="default", now=later) == 2
    assert not HistoryEvent.objects.exists()

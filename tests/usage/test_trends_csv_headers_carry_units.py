"""The trends CSV holds exact integers in base units and says which in every header: a bare
``vcore`` column over 38500 read as 38,500 cores where the page said 38.5 vcore."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

from django.urls import reverse

from quotaweb.usage import selectors
from tests.usage.pages import GiB
from tests.usage.test_pages_trends import sampled  # noqa: F401  (fixture)

ALICE = reverse("usage:trends", args=["default", "user", "alice"])


def test_each_resource_header_names_its_unit():
    at = datetime(2026, 1, 1, tzinfo=UTC)
    rows = selectors.trend_csv_rows([{
        "at": at, "resource": {"memory": 3 * GiB, "vcore": 38500, "nvidia.com/gpu": 2},
        "running": 4,
    }])
    assert rows == [
        ["time", "memory_bytes", "nvidia.com/gpu_count", "vcore_millicores",
         "running_applications"],
        [at.isoformat(), str(3 * GiB), "2", "38500", "4"],
    ]


def test_the_download_carries_the_units(viewer_client, sampled):  # noqa: F811
    response = viewer_client.get(ALICE, {"format": "csv", "days": "1"})
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["time", "memory_bytes", "running_applications"]
    assert rows[-1][1] == str(10 * GiB)

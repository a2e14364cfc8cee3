"""The draft page reads memory the way the admin wrote it (issue 14, item 1): an edit to
``16Gi`` shows as ``16Gi`` in the YAML diff and as ``16 GiB`` in the impact table, never as
``17.2 GB``, with the exact bytes on hover."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotaweb.engine.gateway import engines_get

pytestmark = pytest.mark.django_db

GiB = 2**30
DRAFT = reverse("config:draft")
ENG = reverse("config:queue", args=["default", "root.eng"])
# A figure in decimal units (17.2 GB, 1.1 TB): what the pages no longer print.
DECIMAL_UNITS = re.compile(r"\d (?:kB|MB|GB|TB|PB)\b")


@pytest.fixture
def tightened(quota_admin_client, active_small):
    """alice uses 30 GiB at root.eng, and a staged edit lowers her limit from 40Gi to 16Gi."""
    with engines_get().engine("default") as engine:
        assert engine.increase(user="alice", groups=["ml"], queue_path="root.eng",
                               resource={"memory": 30 * GiB}, app_id="a1").allowed
    quota_admin_client.post(ENG, {"action": "limit-save", "index": "0",
                                  "limit-0-description": "alice", "limit-0-users": "alice",
                                  "limit-0-max_resources": "memory: 16Gi, vcore: 20",
                                  "limit-0-max_applications": "4"})
    return quota_admin_client.get(DRAFT).content.decode()


def test_the_diff_keeps_what_was_written_and_the_impact_reads_the_same_unit(tightened):
    diff = tightened.split('class="diff"', 1)[1].split("</pre>", 1)[0]
    assert "16Gi" in diff
    impact = re.search(r'<tr data-impact="user:alice".*?</tr>', tightened, re.S).group(0)
    assert f'<td title="memory {30 * GiB} bytes">memory 30 GiB</td>' in impact
    assert (
        f'<td title="memory {16 * GiB} bytes, vcore 20000 millicores">memory 16 GiB, 20 vcore</td>'
    ) in impact
    assert DECIMAL_UNITS.search(tightened) is None


def test_the_queue_page_reads_limits_in_binary_units(quota_admin_client, tightened):
    page = quota_admin_client.get(ENG).content.decode()
    assert "memory 100 GiB, 100 vcore" in page  # root.eng's max: 100Gi
    assert "memory 16 GiB" in page  # the staged limit
    assert DECIMAL_UNITS.search(page) is None

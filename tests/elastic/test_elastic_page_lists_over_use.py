"""The elastic page lists the queues above their runtime: since when, by how much, when
revocation would act and which allocations it would pick; and says that quotaweb only reports
this and evicts nothing. While elastic quota is off, above the runtime is information, not an
alarm: no red tag, the list collapsed, and the picks only when asked for."""

from __future__ import annotations

import re
import time

import pytest

from quotaweb.allocations.models import Allocation
from quotaweb.elastic.templatetags.elastic_rows import TAG_OVER_OFF
from tests.elastic.pages import page_url
from tests.elastic.support import ALLOCATIONS, DEMAND, SETTINGS, TOTAL, allocation, gpus

pytestmark = pytest.mark.django_db


def _table(html: str, marker: str) -> list[str]:
    body = html.split(marker)[1].split("</tbody>")[0]
    return re.findall(r'<tr data-key="([^"]+)">', body)


def test_a_squeezed_queue_and_what_revocation_would_pick(viewer_client, admin_api, active_elastic):
    admin_api.put(TOTAL, gpus(100), format="json")
    for number in range(4):  # off: a takes its whole max, 10 GPUs at a time
        answer = admin_api.post(ALLOCATIONS, allocation(
            f"a{number}", queue="root.a", count=10, user=f"user-{number}", app=f"app-{number}"
        ), format="json")
        assert answer.status_code == 201
        time.sleep(0.01)
    html = viewer_client.get(page_url()).content.decode()
    assert "data-over-empty>No queue uses more than its runtime now." in html
    assert "quotaweb only reports this: it evicts nothing." in html

    for path, count in (("root.b", 60), ("root.c", 50), ("root.d", 80)):
        admin_api.put(DEMAND, {"queuePath": path, "resource": gpus(count)}, format="json")
    html = viewer_client.get(page_url()).content.decode()
    assert _table(html, "data-over-table>") == ["root.a"]
    # off: information, not an alarm; the picks only on request
    assert TAG_OVER_OFF.split("{")[0] + "gpu " in html
    assert 'class="tag over"' not in html
    assert "data-over-details>" in html  # collapsed
    assert "data-picks-table" not in html
    assert "data-picks-hidden" in html
    html = viewer_client.get(page_url() + "?revocation=1").content.decode()
    picks = _table(html, "data-picks-table>")
    assert picks == ["a3", "a2", "a1", "a0"][: len(picks)]  # newest first

    assert admin_api.put(SETTINGS, {"enabled": True}, format="json").status_code == 200
    html = viewer_client.get(page_url()).content.decode()
    assert _table(html, "data-over-table>") == ["root.a"]
    row = html.split('data-over-table>')[1].split("</tr>", 2)[1]
    assert re.search(r'<td class="over-by">gpu \d+</td>', row)
    # since when, and when revocation would act (120 s later)
    since, revoke = re.findall(r'<time datetime="([^"]+)">', row)
    assert since < revoke
    picks = _table(html, "data-picks-table>")
    assert picks
    assert picks == ["a3", "a2", "a1", "a0"][: len(picks)]  # newest first
    assert ">app-3</code>" in html
    assert ">user-3</a>" in html
    assert 'data-over-paths="root.a"' in html
    assert 'over its runtime by gpu' in html
    # reported, never executed
    assert Allocation.objects.count() == 4

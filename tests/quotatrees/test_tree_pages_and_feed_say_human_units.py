"""No quota tree page or message says an amount in base units. A tree counting memory (bytes)
and cpu (millicores) is used as the demo uses its trees: consumers placed, one borrowing, one
rejected, one preempted, one released, on the tree and through a forest. Then the list, the
tree, the forest and every consumer page, their hover titles included, and the live feed's
events (what the socket sends the pages: steps and messages) say every amount as the rest of
the product does (``48 GiB``, ``2 vcore``), never as the integers the trees count in."""

from __future__ import annotations

import re

import pytest

from quotaweb.quotatrees import selectors, services
from tests.quotatrees.pages import text, url
from tests.quotatrees.support import tree_document

pytestmark = pytest.mark.django_db

GIB = 2**30
CORE = 1000
NODES = [
    ("lab", None, {"cpu": 8 * CORE, "memory": 64 * GIB}),
    ("vision", "lab", {"cpu": 4 * CORE, "memory": 32 * GIB}),
    ("speech", "lab", {"cpu": 4 * CORE, "memory": 32 * GIB}),
]
# (id, group, cores, GiB, priority): j2 borrows from lab, j3 does not fit, j5 pushes j4 out.
CONSUMERS = [
    ("j1", "vision", 2, 16, 0), ("j2", "vision", 3, 24, 0), ("j3", "speech", 6, 48, 0),
    ("j4", "speech", 1, 8, 0), ("j5", "speech", 3, 40, 1),
]
# A date, a time or a version stamp is a number people read; base units are long integers.
_CLOCK = re.compile(r"\d{4}-\d{2}-\d{2}|\d{2}:\d{2}(:\d{2})?")
_TITLE = re.compile(r'title="([^"]*)"')
# Data for the page's script (the live rows format it as the server does), never shown as is.
_SCRIPT = re.compile(r"<script\b.*?</script>", re.S)


def _request(cores: int, gib: int) -> dict[str, int]:
    return {"cpu": cores * CORE, "memory": gib * GIB}


@pytest.fixture
def lab(admin, active_sample):
    services.tree_put(
        tree="lab", document=tree_document("lab", ["cpu", "memory"], NODES), author=admin
    )
    services.forest_put(forest="labs", trees=["lab"])
    for cid, group, cores, gib, priority in CONSUMERS:
        services.tree_allocate(tree="lab", body={
            "id": cid, "groupID": group, "request": _request(cores, gib), "priority": priority,
        })
    services.tree_release(tree="lab", consumer="j1")
    services.forest_allocate(forest="labs", body={"kind": "Consumer", "spec": {
        "id": "j6", "trees": [{"treeName": "lab", "groupID": "vision", "request": _request(1, 4)}],
    }})


def _raw_amounts(said: str) -> list[str]:
    """The long integers of ``said`` that are not part of a date or a time."""
    return re.findall(r"\d{4,}", _CLOCK.sub(" ", said))


def _said(page: str) -> str:
    """What a person reads on a page: its text and its hover titles."""
    shown = _SCRIPT.sub(" ", page)
    return " ".join([text(shown), *_TITLE.findall(shown)])


def test_the_pages_say_every_amount_in_units(viewer_client, lab):
    pages = [url("index"), url("tree", "lab"), url("forest", "labs")] + [
        url("consumer", cid) for cid in ("j1", "j2", "j3", "j4", "j5", "j6")
    ]
    for address in pages:
        response = viewer_client.get(address)
        assert response.status_code == 200, address
        said = _said(response.content.decode())
        assert _raw_amounts(said) == [], address
        assert "GiB" in said or address == url("index"), address


def test_the_steps_of_a_placement_say_units(viewer_client, lab):
    page = text(viewer_client.get(url("consumer", "j2")).content.decode())

    assert "vision full (cpu 2 vcore + 3 vcore > 4 vcore, memory 16 GiB + 24 GiB > 32 GiB)" \
        in page
    assert "placed at lab (cpu 2 vcore + 3 vcore <= 8 vcore, memory 16 GiB + 24 GiB <= 64 GiB)" \
        in page


def test_the_live_feed_says_every_amount_in_units(lab):
    events = selectors.tree_feed(tree="lab")
    kinds = {event["kind"] for event in events}
    assert {"allocated", "rejected", "preempted", "released"} <= kinds

    for event in events:
        said = " ".join([event.get("message") or "", *(event.get("steps") or [])])
        assert _raw_amounts(said) == [], event
    assert any("GiB" in step for event in events for step in event.get("steps") or [])

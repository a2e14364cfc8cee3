"""A first look at every page of the demo, as an admin who follows its links: the sample
configuration seeded as ``bin/run`` seeds it (a cluster total with elastic quota off, the lab
tree and the forest) and moved by its three simulators for a while (allocations, tree consumers,
elastic demand). Every page reached from the overview answers, shows live figures, and says no
amount in base units (no byte count, no figure in millicores); the elastic page, with elastic
quota off, raises no over-runtime alarm."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

import pytest

from quotaweb.core.demand_simulator import DemandSimulator
from quotaweb.core.demo_seed import demo_seed
from quotaweb.core.services import engines_start
from quotaweb.core.simulator import InProcessTarget, Simulator
from quotaweb.core.tree_simulator import TreeSimulator
from tests.configs import SAMPLE_CONFIG
from tests.core.simulator_support import run_for

pytestmark = pytest.mark.django_db

# Every kind of page (a queue's, a user's, a version's, a consumer's...) is read a few times,
# not for each of its hundreds of queues, users and consumers.
PAGES_OF_A_KIND = 6
# Not pages a person reads: downloads, the API and its schema, metrics, leaving.
SKIPPED = re.compile(
    r"^/(api|ws|metrics|healthz|accounts/logout|static|admin)/|[?&](download|format)=|\.csv\b"
)
_LINK = re.compile(r'<a\b[^>]*\bhref="([^"#]+)"')
_HIDDEN = re.compile(r"<(script|style|template)\b.*?</\1>", re.S)
_TAG = re.compile(r"<[^>]+>")
# A date, a clock time, a version's sha256, a token: digits people read as they are.
_NOT_AMOUNTS = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}(:\d{2})?|\b[0-9a-f]{16,}\b")
# Bytes are long integers (1 GiB is ten digits); millicores are written with their unit.
_BYTES = re.compile(r"(?<![\d.,])\d{7,}(?![\d.,])")
_MILLICORES = re.compile(r"\b\d+\s*(millicores?|mvcore)\b", re.I)


@pytest.fixture
def demo(db):
    engines_start(config_path=SAMPLE_CONFIG)
    demo_seed()
    for partition in ("default", "gpu"):
        run_for(Simulator(InProcessTarget(partition), rate=20, seed=5), start=0.0, seconds=20)
    trees = TreeSimulator(rate=5.0, seed=5)
    demand = DemandSimulator(rate=5.0, seed=5)
    for tick in range(100):
        trees.step(tick * 0.1)
        demand.step(tick * 0.1)


def _shown(page: str) -> str:
    """What a person reads: the text, less scripts' data, dates, times and hashes."""
    text = " ".join(_TAG.sub(" ", _HIDDEN.sub(" ", page)).split())
    return _NOT_AMOUNTS.sub(" ", text)


def _links(page: str, here: str) -> list[str]:
    found = []
    for href in _LINK.findall(page):
        address = urljoin(here, href.replace("&amp;", "&"))
        parts = urlsplit(address)
        if parts.netloc not in ("", "testserver") or SKIPPED.search(parts.path + "?" + parts.query):
            continue
        found.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return found


def _kind(address: str) -> str:
    """``/usage/default/users/alice/`` and ``/usage/default/users/bob/`` are one kind of page;
    a query is another (``?page=2``)."""
    path, _, query = address.partition("?")
    segments = path.strip("/").split("/")
    return "/".join(segments[:-1] if len(segments) > 1 else segments) + ("?" if query else "")


def _walk(client) -> dict[str, str]:
    """Every kind of page reached by links from the overview, breadth first: address ->
    markup."""
    pages: dict[str, str] = {}
    queue, seen = ["/"], {"/"}
    kinds: dict[str, int] = {}
    while queue:
        address = queue.pop(0)
        kind = _kind(address)
        if kinds.get(kind, 0) >= PAGES_OF_A_KIND:
            continue
        kinds[kind] = kinds.get(kind, 0) + 1
        response = client.get(address, follow=True)
        assert response.status_code == 200, address
        if not response["Content-Type"].startswith("text/html"):
            continue
        pages[address] = response.content.decode()
        for link in _links(pages[address], address):
            if link not in seen:
                seen.add(link)
                queue.append(link)
    return pages


def test_every_page_says_its_amounts_in_units(quota_admin_client, demo):
    pages = _walk(quota_admin_client)

    # every part of the product was reached
    for part in ("/config/", "/usage/default/", "/elastic/default/", "/trees/lab/",
                 "/trees/consumers/", "/teams/"):
        assert any(address.startswith(part) for address in pages), part
    raw = {
        address: _BYTES.findall(shown) + [m.group(0) for m in _MILLICORES.finditer(shown)]
        for address, shown in ((address, _shown(page)) for address, page in pages.items())
    }
    assert {address: found for address, found in raw.items() if found} == {}


def test_the_elastic_page_raises_no_alarm_while_elastic_is_off(quota_admin_client, demo):
    page = quota_admin_client.get("/elastic/default/").content.decode()

    assert 'data-field="enabled">off<' in page
    assert 'class="tag over"' not in page
    assert "data-picks-table" not in page

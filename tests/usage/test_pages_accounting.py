"""The accounting page: linked from the usage pages, a stacked chart and a table sorted by the
header asked for, the CSV link; a bad parameter is a 400 page naming it."""

from __future__ import annotations

import re

import pytest

from tests.api.allocation_support import ALLOCATIONS, GiB, body

pytestmark = pytest.mark.django_db

PAGE = "/usage/default/accounting/"


@pytest.fixture
def used(admin_api, capped_engines):
    admin_api.post(ALLOCATIONS, body("k1", memory=GiB), format="json")
    admin_api.post(ALLOCATIONS, body("k2", user="bob", app="app-2", memory=4 * GiB),
                   format="json")


def _keys(html: str) -> list[str]:
    return re.findall(r'<tr data-row><th scope="row">([^<]+)</th>', html)


def test_the_page_is_linked_and_draws_a_band_per_row(viewer_client, used):
    overview = viewer_client.get("/usage/default/").content.decode()
    assert f'href="{PAGE}"' in overview
    page = viewer_client.get(PAGE, {"step": "hour"})
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('<rect class="series-') >= 2
    assert _keys(html) == ["bob", "alice"]
    assert "memory (GiB-hours)" in html
    assert 'href="?step=hour&amp;format=csv"' in html


def test_the_table_sorts_by_the_header_asked_for(viewer_client, used):
    ascending = viewer_client.get(PAGE, {"sort": "key", "order": "asc"}).content.decode()
    assert _keys(ascending) == ["alice", "bob"]
    assert 'aria-sort="ascending"' in ascending
    smallest = viewer_client.get(PAGE, {"sort": "usage", "order": "asc"}).content.decode()
    assert _keys(smallest) == ["alice", "bob"]


@pytest.mark.parametrize(("params", "parameter"), [
    ({"sort": "colour"}, "sort"), ({"step": "minute"}, "step"), ({"from": "soon"}, "from"),
])
def test_a_bad_parameter_is_a_400_page_naming_it(viewer_client, used, params, parameter):
    page = viewer_client.get(PAGE, params)
    assert page.status_code == 400
    assert f"{parameter}: " in page.content.decode()


def test_an_unknown_partition_is_404(viewer_client, used):
    assert viewer_client.get("/usage/nowhere/accounting/").status_code == 404

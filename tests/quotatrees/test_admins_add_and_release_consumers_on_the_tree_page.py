"""A quota admin adds a consumer from the tree page (amounts in human units) and sees where it
landed; a rejection says which node is short of which resource and by how much, and changes
nothing; bad input is named on its field and changes nothing; a viewer's POST is refused with
403; releasing frees the quota again. The API answers the same words."""

from __future__ import annotations

import pytest

from quotaweb.quotatrees import selectors, services
from quotaweb.quotatrees.consumer_forms import ERR_REQUEST_EMPTY
from quotaweb.quotatrees.explain import MSG_BORROWS, MSG_PLACED, MSG_REJECTED, MSG_SHORT
from quotaweb.quotatrees.units import ERR_QUANTITY, example_of
from tests.quotatrees.pages import text, url
from tests.quotatrees.support import TREES, tree_document

pytestmark = pytest.mark.django_db

GIB = 2**30
# lab: 64 GiB and 16 cores at the root, a hard team-a (32 GiB, 8 cores), a soft team-b below
# a soft group node with 16 GiB and 4 cores.
LAB = [
    ("lab", None, {"cpu": 16_000, "memory": 64 * GIB}),
    ("team-a", "lab", {"cpu": 8_000, "memory": 32 * GIB}),
    ("team-b", "lab", {"cpu": 4_000, "memory": 16 * GIB}),
]


@pytest.fixture
def lab(admin, active_sample):
    services.tree_put(tree="lab", document=tree_document(
        "lab", ["cpu", "memory"], LAB, hard={"team-a"}), author=admin)


def _add(client, **fields):
    data = {"id": "job-1", "group": "team-b", "priority": "0", "request-cpu": "",
            "request-memory": "", **fields}
    return client.post(url("consumer-add", "lab"), data, follow=True)


def _placed() -> dict[str, str]:
    return {row["id"]: row["node"] for row in selectors.tree_allocations(tree="lab")}


def test_an_admin_adds_a_consumer_in_human_units_and_sees_where_it_landed(
    quota_admin_client, lab
):
    answer = _add(quota_admin_client, **{"request-cpu": "2", "request-memory": "8Gi"})
    assert answer.redirect_chain == [(url("tree", "lab"), 302)]
    page = text(answer.content.decode())
    assert MSG_PLACED.format(consumer="job-1", node="team-b", tree="lab") in page
    assert _placed() == {"job-1": "team-b"}
    (row,) = selectors.tree_allocations(tree="lab")
    assert row["request"] == {"cpu": 2000, "memory": 8 * GIB}
    # team-b has 8 GiB left: 12 GiB more borrows at the (soft) root
    answer = _add(quota_admin_client, id="job-2", **{"request-memory": "12Gi"})
    assert MSG_BORROWS.format(consumer="job-2", node="lab", tree="lab", group="team-b") in (
        text(answer.content.decode())
    )
    assert _placed() == {"job-1": "team-b", "job-2": "lab"}


def test_a_rejection_says_which_node_is_short_of_what(quota_admin_client, lab):
    assert _add(quota_admin_client, id="big", group="team-a",
                **{"request-memory": "20Gi"}).status_code == 200
    # team-a is hard: it cannot borrow above it, and has 12 GiB left
    answer = _add(quota_admin_client, id="more", group="team-a", **{"request-memory": "16Gi"})
    assert answer.status_code == 409
    short = MSG_SHORT.format(node="team-a", left="12 GiB", resource="memory", asks="16 GiB",
                             short="4 GiB")
    assert MSG_REJECTED.format(consumer="more", tree="lab", why=short) in (
        text(answer.content.decode())
    )
    assert _placed() == {"big": "team-a"}


def test_the_api_answers_the_same_words(admin_api, lab):
    answer = admin_api.post(f"{TREES}/lab/allocations", {
        "id": "huge", "groupID": "team-b", "request": {"memory": 80 * GIB},
    }, format="json")
    assert answer.status_code == 409
    short = MSG_SHORT.format(node="lab", left="64 GiB", resource="memory", asks="80 GiB",
                             short="16 GiB")
    assert answer.json()["explanation"] == MSG_REJECTED.format(
        consumer="huge", tree="lab", why=short)
    answer = admin_api.post(f"{TREES}/lab/allocations", {
        "id": "small", "groupID": "team-b", "request": {"cpu": 500},
    }, format="json")
    assert answer.status_code == 201
    assert answer.json()["explanation"] == MSG_PLACED.format(
        consumer="small", node="team-b", tree="lab")


@pytest.mark.parametrize(("fields", "field", "message"), [
    ({"request-memory": "64Gx"}, "request-memory",
     ERR_QUANTITY.format(value="64Gx", resource="memory", example=example_of("memory"))),
    ({"request-cpu": "1.5"}, "request-cpu",
     ERR_QUANTITY.format(value="1.5", resource="cpu", example=example_of("cpu"))),
    ({"group": "lab", "request-cpu": "1"}, "group", None),
    ({"id": "", "request-cpu": "1"}, "id", None),
    ({}, None, ERR_REQUEST_EMPTY),
])
def test_bad_input_is_named_and_changes_nothing(quota_admin_client, lab, fields, field, message):
    answer = _add(quota_admin_client, **fields)
    assert answer.status_code == 400
    page = answer.content.decode()
    if field is not None:
        assert f'data-error-for="{field}"' in page
    if message is not None:
        assert message in text(page)
    assert _placed() == {}


def test_an_admin_releases_a_consumer(quota_admin_client, lab):
    _add(quota_admin_client, **{"request-cpu": "1"})
    answer = quota_admin_client.post(url("consumer-release", "lab"), {"consumer": "job-1"},
                                     follow=True)
    assert answer.redirect_chain == [(url("tree", "lab"), 302)]
    assert "Released job-1 from tree lab" in text(answer.content.decode())
    assert _placed() == {}
    # a consumer not on the tree: named, nothing changed
    answer = quota_admin_client.post(url("consumer-release", "lab"), {"consumer": "ghost"})
    assert answer.status_code == 400


def test_a_viewer_can_neither_add_nor_release(viewer_client, quota_admin_client, lab):
    _add(quota_admin_client, **{"request-cpu": "1"})
    assert _add(viewer_client, id="sneaky", **{"request-cpu": "1"}).status_code == 403
    answer = viewer_client.post(url("consumer-release", "lab"), {"consumer": "job-1"})
    assert answer.status_code == 403
    assert _placed() == {"job-1": "team-b"}
    page = viewer_client.get(url("tree", "lab")).content.decode()
    assert "data-add-form" not in page

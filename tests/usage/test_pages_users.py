"""The users table (most constrained limit, search, filters, sorting) and a user's page (queue
tree against effective limits, applications and their groups, "will it fit?")."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.html import escape

from quotaweb.usage.forms import ERR_QUANTITY
from tests.usage.pages import ODD_USER, GiB, allocate, engines_busy, engines_pages, keys, row, shown

pytestmark = pytest.mark.django_db

USERS = reverse("usage:users", args=["default"])
ALICE = reverse("usage:user", args=["default", "alice"])


@pytest.fixture
def busy(db):
    return engines_busy()


def _users(client, **params) -> str:
    response = client.get(USERS, params)
    assert response.status_code == 200
    return response.content.decode()


# -- the table ----------------------------------------------------------------------------------


def test_every_user_with_their_most_constrained_limit(viewer_client, busy):
    html = _users(viewer_client)
    assert keys(html, "users") == ["alice", "bob", ODD_USER]
    alice = row(html, "alice")
    assert "9 GiB of 10 GiB · 90 %" in alice
    assert 'class="ubar lvl-90"' in alice
    assert f'memory at <a href="{reverse("usage:queue", args=["default", "root.eng"])}">' in alice
    assert '<td class="num" data-label="Running">1</td>' in alice
    assert f'<a href="{reverse("usage:group", args=["default", "ml"])}">ml</a>' in alice
    # bob is furthest along his application cap: 1 of the 5 everyone may run, at root.
    bob = row(html, "bob")
    assert "1 of 5 · 20 %" in bob
    assert "apps at" in bob
    assert '<span class="hint">none</span>' in bob
    assert "<span data-shown>1\N{EN DASH}3</span> of <span data-matched>3</span> users." in html


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"q": "OB"}, ["bob"]),
        ({"queue": "root.eng"}, ["alice", ODD_USER]),
        ({"queue": "ROOT.OPS"}, ["bob"]),
        ({"group": "ml"}, ["alice"]),
        ({"group": "*"}, [ODD_USER]),
        ({"q": "a", "queue": "root.eng"}, ["alice"]),
        ({"sort": "usage"}, ["alice", "bob", ODD_USER]),
        ({"sort": "apps"}, ["alice", "bob", ODD_USER]),
    ],
)
def test_search_filters_and_sorting_come_from_the_url(viewer_client, busy, params, expected):
    html = _users(viewer_client, **params)
    assert keys(html, "users") == expected
    for name, value in params.items():
        if name == "group":
            shown_as = "everyone (*)" if value == "*" else value
            assert f'<option value="{escape(value)}" selected>{escape(shown_as)}</option>' in html
        elif name != "sort":
            assert f'value="{escape(value.lower() if name == "queue" else value)}"' in html


def test_sorting_by_usage_puts_the_most_constrained_first(viewer_client, busy):
    assert allocate("b2", user="bob", app="app-4", queue="root.ops", memory=17 * GiB,
                    groups=()).allowed  # bob: 19 of 20 GiB at root, 95 %
    assert keys(_users(viewer_client, sort="usage"), "users") == ["bob", "alice", ODD_USER]
    assert allocate("c2", user=ODD_USER, app="app-5", queue="root.ops", memory=GiB,
                    groups=()).allowed
    # Two applications each now: the name decides between them.
    assert keys(_users(viewer_client, sort="apps"), "users") == ["bob", ODD_USER, "alice"]


def test_the_column_headers_sort_and_say_which_sorts(viewer_client, busy):
    html = _users(viewer_client, sort="usage", q="a")
    assert '<th scope="col" aria-sort="descending"><a href="?sort=usage&amp;q=a">' in html
    assert '<a href="?sort=name&amp;q=a">User</a>' in html


def test_no_match_says_how_to_get_everyone_back(viewer_client, busy):
    html = _users(viewer_client, q="zzz")
    assert keys(html, "users") == []
    assert shown(html, "data-empty")
    assert "No user matches these filters" in html
    assert f'<a href="{USERS}">Clear the filters</a>' in html


def test_an_empty_partition_says_where_users_come_from(viewer_client, db):
    engines_pages()
    html = viewer_client.get(reverse("usage:users", args=["gpu"])).content.decode()
    assert shown(html, "data-empty")
    assert "No user has usage or a limit of their own in this partition yet" in html


def test_each_row_on_the_page_follows_its_own_scope(viewer_client, busy):
    html = _users(viewer_client, q="a", queue="root.eng", sort="usage")
    assert keys(html, "users") == ["alice"]
    assert 'data-scopes="user:alice"' in html
    everyone = _users(viewer_client)
    assert f'data-scopes="user:alice user:bob user:{escape(ODD_USER)}"' in everyone


# -- one user -----------------------------------------------------------------------------------


def test_the_users_tree_against_effective_limits(viewer_client, busy):
    html = viewer_client.get(ALICE).content.decode()
    assert keys(html, "tree") == ["root", "root.eng", "root.eng.ml"]
    root = row(html, "root")
    assert "9 GiB of 20 GiB · 45 %" in root  # the user wildcard at root: 20 GiB
    eng = row(html, "root.eng")
    assert "9 GiB of 10 GiB · 90 %" in eng
    assert "0 vcore of 8 vcore · 0 %" in eng
    assert "1 of 2 · 50 %" in eng
    # root.eng.ml caps nothing for alice: root.eng's limit holds there.
    ml = row(html, "root.eng.ml")
    assert f'data-sig="memory={9 * GiB}/{10 * GiB}@root.eng;vcore=0/8000@root.eng;' in ml
    assert "applications=1/2@root.eng" in ml
    assert 'data-scopes="user:alice"' in html


def test_which_group_each_application_counts_against(viewer_client, busy):
    html = viewer_client.get(ALICE).content.decode()
    app = row(html, "app-1")
    queue = reverse("usage:queue", args=["default", "root.eng.ml"])
    assert f'<a href="{queue}">root.eng.ml</a>' in app
    assert f'<a href="{reverse("usage:group", args=["default", "ml"])}">ml</a>' in app
    bob = viewer_client.get(reverse("usage:user", args=["default", "bob"])).content.decode()
    assert '<span class="hint">no group</span>' in row(bob, "app-2")
    assert '<dd class="small" data-field="groups">no group</dd>' in bob


def test_a_user_with_only_a_limit_has_no_applications_yet(viewer_client, db):
    engines_pages()
    html = viewer_client.get(ALICE).content.decode()
    assert keys(html, "apps") == []
    assert shown(html, "data-empty-apps")
    assert "No application runs right now." in html


# -- will it fit? -------------------------------------------------------------------------------


def _fit(client, **params) -> str:
    response = client.get(ALICE, {"groups": "ml", "application": "", **params})
    assert response.status_code == 200
    return response.content.decode()


def test_a_request_that_fits_exactly(viewer_client, busy):
    html = _fit(viewer_client, queue="root.eng.ml", resources="memory: 1Gi")
    assert 'data-fit="yes"' in html
    assert (
        f'<strong>Fits.</strong> <span title="memory {GiB} bytes">memory 1 GiB</span> in '
        "<code>root.eng.ml</code>"
    ) in html
    # alice's own 1 GiB at root.eng, her 8 vcore there (ml's 7 GiB and the queue's 90 GiB are more).
    assert "Headroom there: memory 1 GiB, 8 vcore." in html


def test_a_request_that_does_not_fit_says_by_how_much(viewer_client, busy):
    html = _fit(viewer_client, queue="root.eng.ml", resources="memory: 2Gi, vcore: 500m")
    assert 'data-fit="no"' in html
    assert "<strong>Does not fit.</strong>" in html
    assert f'Short by <strong data-short title="memory {GiB} bytes">memory 1 GiB</strong>.' in html


def test_a_new_application_over_the_application_cap_does_not_fit(viewer_client, busy):
    assert allocate("a3", app="app-9", memory=GiB // 4).allowed  # alice: 2 of 2 applications
    html = _fit(viewer_client, queue="root.eng.ml", resources="memory: 1M")
    assert 'data-fit="no"' in html
    assert "A new application would go over an application limit" in html
    running = _fit(viewer_client, queue="root.eng.ml", resources="memory: 1M", application="app-1")
    assert 'data-fit="yes"' in running


def test_asking_changes_nothing(viewer_client, busy):
    before = busy.user_usage("default", "alice"), busy.queues_usage("default")
    _fit(viewer_client, queue="root.eng.ml", resources="memory: 1Gi")
    _fit(viewer_client, queue="root.eng.web", resources="memory: 100Gi")
    assert (busy.user_usage("default", "alice"), busy.queues_usage("default")) == before


def test_a_quantity_that_cannot_be_read_is_shown_on_its_field(viewer_client, busy):
    html = _fit(viewer_client, queue="root.eng", resources="memory: lots")
    assert "data-fit" not in html
    message = ERR_QUANTITY.format(kind="memory", error="invalid quantity", quantity="lots")
    assert f'data-error-for="resources">{escape(message)}</p>' in html


def test_a_malformed_queue_path_is_shown_on_its_field(viewer_client, busy):
    html = _fit(viewer_client, queue="eng..ml", resources="memory: 1Gi")
    assert "data-fit" not in html
    assert 'data-error-for="queue">queue path &#x27;root.eng..ml&#x27; has an invalid' in html


def test_a_path_without_the_root_is_read_below_the_root(viewer_client, busy):
    html = _fit(viewer_client, queue="eng.ml", resources="memory: 1Gi")
    assert 'data-fit="yes"' in html
    assert "in <code>root.eng.ml</code>" in html


def test_the_queue_is_picked_from_the_partitions_queues(viewer_client, busy):
    html = _fit(viewer_client, queue="root.eng.web", resources="memory: 1Gi")
    picker = html[html.index('<select name="queue"'):]
    picker = picker[:picker.index("</select>")]
    assert '<option value="root.eng.ml">root.eng.ml</option>' in picker
    assert '<option value="root.eng.web" selected>root.eng.web</option>' in picker


def test_the_form_keeps_what_was_asked(viewer_client, busy):
    html = _fit(viewer_client, queue="root.eng.web", resources="memory: 1Gi")
    assert '<option value="root.eng.web" selected>' in html
    assert 'name="resources" value="memory: 1Gi"' in html
    assert 'method="get" action="#fit"' in html

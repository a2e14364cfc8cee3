"""The partition overview: the queue tree with every user's usage against each queue's maximum."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.usage.pages import GiB, engines_busy, engines_pages, keys, row, shown

pytestmark = pytest.mark.django_db

OVERVIEW = reverse("usage:overview", args=["default"])


def test_every_queue_is_a_row_in_tree_order_linking_to_its_usage_page(viewer_client, db):
    engines_pages()
    html = viewer_client.get(OVERVIEW).content.decode()
    assert keys(html, "tree") == [
        "root", "root.eng", "root.eng.ml", "root.eng.web", "root.ops",
    ]
    assert 'class="depth-2"' in row(html, "root.eng.ml")
    assert f'href="{reverse("usage:queue", args=["default", "root.eng.ml"])}"' in html


def test_an_idle_partition_says_what_to_do_next(viewer_client, db):
    engines_pages()
    html = viewer_client.get(OVERVIEW).content.decode()
    assert shown(html, "data-idle")
    assert "Nothing runs in this partition yet" in html
    assert "POST /api/v1/partitions/default/allocations" in html


def test_usage_of_all_users_against_the_queue_maximum(viewer_client, db):
    engines_busy()
    html = viewer_client.get(OVERVIEW).content.decode()
    assert not shown(html, "data-idle")
    assert '<dd data-field="running">3</dd>' in html
    eng = row(html, "root.eng")
    # alice's 9 GiB and the odd user's 1 GiB, of root.eng's 100 GiB.
    assert "10 GiB of 100 GiB · 10 %" in eng
    assert 'class="ubar lvl-ok"' in eng
    assert "2 of 10 · 20 %" in eng  # running applications against maxapplications
    assert f"memory: {10 * GiB} bytes used of {100 * GiB} bytes" in eng  # raw values on hover


def test_a_queue_without_a_maximum_of_its_own_is_held_by_its_parent(viewer_client, db):
    engines_busy()
    ml = row(viewer_client.get(OVERVIEW).content.decode(), "root.eng.ml")
    # 9 GiB used here; root.eng leaves 90 GiB more, so the most ml could hold now is 99 GiB,
    # and the bar says why: root.eng's 100 GiB less the 1 GiB its other queues use.
    assert f'data-sig="memory={9 * GiB}/{99 * GiB}@root.eng^{100 * GiB};' in ml
    assert "tightest limit at root.eng" in ml
    assert "9 GiB of 99 GiB · 9 % · capped by root.eng: 100 GiB less 1 GiB in use elsewhere" in ml
    # Its own application cap (5) leaves less room than root.eng's (10, two running).
    assert "applications=1/5@root.eng.ml" in ml


def test_the_bar_colours_follow_the_thresholds(viewer_client, db):
    from tests.usage.pages import allocate

    engines_pages()
    for n in range(4):
        assert allocate(f"k{n}", user=f"u{n}", app=f"app-{n}", queue="root.eng.web",
                        memory=19 * GiB, groups=()).allowed
    eng = row(viewer_client.get(OVERVIEW).content.decode(), "root.eng")
    assert 'class="ubar lvl-75"' in eng  # 76 of 100 GiB
    assert "76 %" in eng


def test_other_partitions_are_one_click_away(viewer_client, db):
    engines_pages()
    html = viewer_client.get(OVERVIEW).content.decode()
    assert f'<a href="{OVERVIEW}" aria-current="page">default</a>' in html
    assert f'<a href="{reverse("usage:overview", args=["gpu"])}">gpu</a>' in html


def test_the_page_subscribes_to_the_queues_it_shows_open(viewer_client, db):
    engines_pages()
    html = viewer_client.get(OVERVIEW).content.decode()
    assert 'data-view="overview"' in html
    assert 'data-partition="default" data-scopes="queue:root queue:root.eng"' in html
    assert 'data-queue-url="/usage/default/queues/__path__/"' in html

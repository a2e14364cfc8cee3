"""The elastic page of a partition shows, per queue in tree order and per resource, min, max,
weight, request, used, runtime, lent, borrowed and each parent's unallocated rest, in human
units, with a bar per queue and resource, when it was computed, and system queues and the root
explained in words. ``/elastic/`` opens the first partition."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.config.services import config_apply
from quotaweb.core.services import engines_start
from quotaweb.elastic import services
from quotaweb.elastic.page_selectors import NOTE_ROOT, NOTE_SYSTEM
from tests.elastic.pages import figures, page_url, queue_bodies
from tests.elastic.support import k1

SHOWN = ("min", "max", "weight", "request", "used", "runtime", "lent", "borrowed")

pytestmark = pytest.mark.django_db

GiB = 2**30
TREE_ORDER = [
    "root", "root.a", "root.b", "root.c", "root.d", "root.e", "root.e.e1", "root.e.e2",
    "root.sys",
]
# Two queues sharing memory and vcore: y asks for nothing and lends its min to x.
MEMORY_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: x
            resources: {guaranteed: {memory: 100Gi, vcore: "10"}, max: {memory: 400Gi, vcore: "40"}}
          - name: y
            resources: {guaranteed: {memory: 100Gi, vcore: "10"}, max: {memory: 400Gi, vcore: "40"}}
"""


def test_the_k1_runtimes_lent_and_borrowed_per_queue_in_tree_order(
    viewer_client, admin_api, active_elastic
):
    k1(admin_api)
    response = viewer_client.get(page_url())
    assert response.status_code == 200
    html = response.content.decode()
    bodies = queue_bodies(html)
    assert list(bodies) == TREE_ORDER
    a = figures(bodies["root.a"])["gpu"]
    assert (a["min"], a["max"], a["weight"]) == ("10", "40", "40")
    assert (a["request"], a["used"]) == ("5", "0")
    assert (a["runtime"], a["lent"], a["borrowed"], a["unallocated"]) == ("5", "5", "0", "")
    d = figures(bodies["root.d"])["gpu"]
    assert (d["request"], d["runtime"], d["lent"], d["borrowed"]) == ("70", "40", "0", "25")
    assert figures(bodies["root.c"])["gpu"]["runtime"] == "35"
    # a parent shows what its children were not given: K1 hands out the whole pool
    root = figures(bodies["root"])["gpu"]
    assert (root["runtime"], root["unallocated"]) == ("100", "0")
    assert NOTE_ROOT in html
    assert "tag\">system</span>" in bodies["root.sys"]
    assert NOTE_SYSTEM in bodies["root.sys"]
    # bars with their numbers as text
    assert 'aria-label="gpu: runtime 40 against a min of 15, borrows 25; uses 0; asks for 70, ' \
        '30 more than it gets"' in bodies["root.d"]
    assert 'aria-label="gpu: runtime 5 against a min of 10, lends 5; uses 0"' in bodies["root.a"]
    # In whole % of the largest figure (the request, 70): its own 15, then 25 borrowed.
    assert 'class="ebar-own w-21"' in bodies["root.d"]
    assert 'class="ebar-borrowed left-21 w-35"' in bodies["root.d"]
    assert 'class="ebar-lent left-' in bodies["root.a"]
    # settings and when it was computed
    assert 'data-field="enabled">off<' in html
    assert 'data-field="cluster-total">gpu 100<' in html
    assert 'data-field="computed"><time datetime="' in html
    # live: the page follows the elastic scope
    assert 'data-scopes="elastic"' in html
    assert "js/elastic.js" in html
    assert "js/live.js" in html


def test_memory_and_vcore_in_human_units(viewer_client, admin, db):
    config_apply(yaml_text=MEMORY_YAML, author=None, base_version=None)
    engines_start()
    services.elastic_total_set(
        partition="default", total={"memory": 200 * GiB, "vcore": 20_000}, author=admin
    )
    services.elastic_demand_set(
        partition="default", queue_path="root.x", demand={"memory": 150 * GiB, "vcore": 15_000}
    )
    html = viewer_client.get(page_url()).content.decode()
    assert 'data-field="cluster-total">memory 200 GiB, 20 vcore<' in html
    x = figures(queue_bodies(html)["root.x"])
    assert [x["memory"][name] for name in SHOWN] == [
        "100 GiB", "400 GiB", "400 GiB", "150 GiB", "0 B", "150 GiB", "0 B", "50 GiB",
    ]
    assert [x["vcore"][name] for name in SHOWN] == [
        "10 vcore", "40 vcore", "40 vcore", "15 vcore", "0 vcore", "15 vcore", "0 vcore",
        "5 vcore",
    ]
    y = figures(queue_bodies(html)["root.y"])["memory"]
    assert (y["runtime"], y["lent"]) == ("0 B", "100 GiB")  # it lends its whole min


def test_the_elastic_index_opens_the_first_partition_and_the_nav_links_it(
    viewer_client, active_elastic
):
    response = viewer_client.get(reverse("elastic:index"))
    assert response.status_code == 302
    assert response["Location"] == page_url()
    html = viewer_client.get(page_url()).content.decode()
    assert f'<a href="{reverse("elastic:index")}" aria-current="page">Elastic quota</a>' in html
    home = viewer_client.get(reverse("core:home")).content.decode()
    assert f'<a href="{reverse("elastic:index")}">Elastic quota</a>' in home


def test_anonymous_visitors_are_sent_to_log_in(client, active_elastic):
    response = client.get(page_url())
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login"))

"""The elastic quota endpoints (api.md "Elastic quota"): the tree with every runtime, the cluster
total, a leaf's demand, the switch, one runtime explained, and who may call what."""

from __future__ import annotations

import pytest

from tests.elastic.support import (
    DEMAND,
    ELASTIC,
    EXPLAIN,
    K1_RUNTIME,
    SETTINGS,
    TOTAL,
    gpus,
    k1,
    row,
    runtimes,
)

pytestmark = pytest.mark.django_db

TREE_ORDER = [
    "root", "root.a", "root.b", "root.c", "root.d", "root.e", "root.e.e1", "root.e.e2",
    "root.sys",
]


def test_the_tree_starts_off_with_nothing_to_share(admin_api, active_elastic):
    view = admin_api.get(ELASTIC).json()
    assert view["enabled"] is False
    assert view["clusterTotal"] == {}
    # every type some queue's max names is shared, none of it is there yet
    assert view["pool"] == gpus(0)
    assert view["computedAt"]
    assert [queue["queuePath"] for queue in view["queues"]] == TREE_ORDER
    a = row(view, "root.a")
    assert a["min"] == gpus(10)
    assert a["max"] == gpus(40)
    assert a["sharedWeight"] == gpus(40)  # the weight defaults to max
    assert a["allowLent"] is True
    assert a["leaf"] is True
    assert a["parent"] == "root"
    assert row(view, "root.sys")["system"] is True
    assert row(view, "root.e")["leaf"] is False


def test_k1_runtimes_lent_and_borrowed_through_the_api(admin_api, active_elastic):
    view = k1(admin_api)
    assert view["clusterTotal"] == gpus(100)
    assert view["pool"] == gpus(100)
    assert runtimes(view, K1_RUNTIME) == K1_RUNTIME
    assert row(view, "root.a")["lent"] == gpus(5)
    assert row(view, "root.a")["borrowed"] == {}
    assert row(view, "root.d")["borrowed"] == gpus(25)
    assert row(view, "root.c")["request"] == gpus(40)
    assert row(view, "root.d")["demand"] == gpus(70)
    # the whole pool is handed out
    assert row(view, "root")["unallocated"] == {}


def test_a_new_demand_replaces_the_old_and_an_empty_one_clears_it(admin_api, active_elastic):
    k1(admin_api)
    admin_api.put(DEMAND, {"queuePath": "root.a", "resource": gpus(30)}, format="json")
    view = admin_api.get(ELASTIC).json()
    assert row(view, "root.a")["demand"] == gpus(30)
    assert row(view, "root.a")["request"] == gpus(30)
    cleared = admin_api.put(DEMAND, {"queuePath": "root.a", "resource": {}}, format="json")
    assert row(cleared.json(), "root.a")["demand"] == {}
    assert row(cleared.json(), "root.a")["runtime"] == gpus(0)


def test_a_parent_adds_up_its_leaves(admin_api, active_elastic):
    admin_api.put(TOTAL, gpus(100), format="json")
    admin_api.put(DEMAND, {"queuePath": "root.e.e1", "resource": gpus(70)}, format="json")
    admin_api.put(DEMAND, {"queuePath": "root.e.e2", "resource": gpus(10)}, format="json")
    view = admin_api.get(ELASTIC).json()
    # e1 asks 70 but its max is 50: the parent sees 50 + 10
    assert row(view, "root.e")["request"] == gpus(60)
    assert runtimes(view, ["root.e", "root.e.e1", "root.e.e2"]) == {
        "root.e": 60, "root.e.e1": 50, "root.e.e2": 10,
    }


def test_the_switch_turns_on_and_off(admin_api, active_elastic):
    on = admin_api.put(SETTINGS, {"enabled": True}, format="json")
    assert on.status_code == 200
    assert on.json()["enabled"] is True
    assert admin_api.get(ELASTIC).json()["enabled"] is True
    off = admin_api.put(SETTINGS, {"enabled": False}, format="json")
    assert off.json()["enabled"] is False


def test_a_runtime_is_explained_step_by_step(admin_api, active_elastic):
    k1(admin_api)
    answer = admin_api.get(EXPLAIN, {"queuePath": "root.d", "resource": "gpu"})
    assert answer.status_code == 200
    explained = answer.json()
    assert explained["queuePath"] == "root.d"
    assert explained["resource"] == "gpu"
    assert explained["runtime"] == 40
    assert len(explained["steps"]) >= 3  # its min, then two passes of the fair split
    assert all(step["text"] for step in explained["steps"])


def test_explaining_an_unknown_queue_is_a_clear_404(admin_api, active_elastic):
    answer = admin_api.get(EXPLAIN, {"queuePath": "root.nope", "resource": "gpu"})
    assert answer.status_code == 404
    assert answer.json()["error"] == "not_found"
    assert "root.nope" in answer.json()["message"]
    assert admin_api.get(EXPLAIN, {"queuePath": "root.a"}).status_code == 400


def test_demand_for_an_unknown_queue_is_404_and_for_a_parent_queue_409(admin_api, active_elastic):
    before = admin_api.get(ELASTIC).json()
    answer = admin_api.put(DEMAND, {"queuePath": "root.nope", "resource": gpus(1)}, format="json")
    assert (answer.status_code, answer.json()["error"]) == (404, "not_found")
    assert "root.nope" in answer.json()["message"]
    answer = admin_api.put(DEMAND, {"queuePath": "root.e", "resource": gpus(1)}, format="json")
    assert (answer.status_code, answer.json()["error"]) == (409, "conflict")
    assert "has child queues" in answer.json()["message"]
    assert admin_api.get(ELASTIC).json() == before


def test_viewers_read_and_only_admins_write(viewer_api, admin_api, active_elastic, outsider):
    assert viewer_api.get(ELASTIC).status_code == 200
    for path, body in ((TOTAL, gpus(1)), (SETTINGS, {"enabled": True}),
                       (DEMAND, {"queuePath": "root.a", "resource": gpus(1)})):
        assert viewer_api.put(path, body, format="json").status_code == 403
        assert outsider.put(path, body, content_type="application/json").status_code == 401
    view = admin_api.get(ELASTIC).json()
    assert view["enabled"] is False
    assert view["clusterTotal"] == {}
    assert row(view, "root.a")["demand"] == {}


def test_an_unknown_partition_is_404(admin_api, active_elastic):
    assert admin_api.get("/api/v1/partitions/nope/elastic").status_code == 404
    answer = admin_api.put("/api/v1/partitions/nope/elastic/cluster-total", gpus(1),
                           format="json")
    assert answer.status_code == 404

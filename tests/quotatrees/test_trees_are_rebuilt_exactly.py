"""Every allocation, preemption, slide and release is stored before it is answered, so the trees
rebuilt from storage equal the live ones: after random operations in process, after a failed
store, and after a server is killed (SIGKILL) in the middle of a load."""

from __future__ import annotations

import random
import threading
import time

import pytest

from quotaweb.engine.quotatrees import trees_get
from quotaweb.quotatrees import services
from quotaweb.quotatrees.models import Placement
from quotaweb.quotatrees.services import _manager_from_storage
from tests.configs import CAPPED_YAML
from tests.quotatrees.support import EXAMPLE_NODES, FORESTS, TREES, example_document, tree_document
from tests.server_process import ServerProcess, free_port
from trackers.quotatree import QuotaTreeError

LEAVES = ["E", "F", "K", "L", "M", "N", "I", "J"]


def _states(manager) -> dict:
    return {name: manager.state(name) for name in sorted(manager.tree_names())}


def _random_operations(rng: random.Random, count: int) -> None:
    live: set[str] = set()
    for step in range(count):
        roll = rng.random()
        if live and roll < 0.35:
            cid = rng.choice(sorted(live))
            services.forest_release(forest="pair", consumer=cid) if cid.startswith("f") else \
                services.tree_release(tree="example", consumer=cid)
            live.discard(cid)
        elif roll < 0.75:
            cid = f"t{step}"
            result = services.tree_allocate(tree="example", body={
                "id": cid, "groupID": rng.choice(LEAVES), "request": {"cpu": rng.randint(1, 3)},
                "priority": rng.randint(0, 2), "unPreemptable": rng.random() < 0.2,
            }, trial=rng.random() < 0.2)
            if result.allocated:
                live.add(cid)
                if result.trial and rng.random() < 0.5:
                    services.tree_undo(tree="example", consumer=cid)
                    live.discard(cid)
            live -= set(result.preempted)
        else:
            cid = f"f{step}"
            result = services.forest_allocate(forest="pair", body={"kind": "Consumer", "spec": {
                "id": cid, "trees": [
                    {"treeName": "example", "groupID": rng.choice(LEAVES),
                     "request": {"cpu": rng.randint(1, 2)}, "priority": rng.randint(0, 2)},
                    {"treeName": "side", "groupID": rng.choice(["X", "Y"]),
                     "request": {"cpu": rng.randint(1, 3)}, "priority": rng.randint(0, 2)},
                ]}})
            if result.allocated:
                live.add(cid)
            live -= set(result.preempted)
    # the consumers the test thinks are live are exactly those stored
    assert set(Placement.objects.values_list("consumer", flat=True)) == live


@pytest.fixture
def pair(admin_api, active_sample):
    admin_api.put(f"{TREES}/example", example_document(), format="json")
    admin_api.put(f"{TREES}/side", tree_document(
        "side", ["cpu"], [("S", None, 6), ("X", "S", 3), ("Y", "S", 2)], hard={"X"}),
        format="json")
    admin_api.put(f"{FORESTS}/pair", {"trees": ["example", "side"]}, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(6))
def test_after_random_operations_storage_rebuilds_the_live_trees(pair, seed):
    _random_operations(random.Random(seed), 150)
    assert _states(_manager_from_storage()) == _states(trees_get().manager)


@pytest.mark.django_db
def test_a_failed_store_answers_nothing_and_leaves_memory_as_stored(pair, monkeypatch):
    services.tree_allocate(tree="example", body={"id": "a", "groupID": "N",
                                                 "request": {"cpu": 1}})
    before = _states(trees_get().manager)

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(services, "_record", broken)
    with pytest.raises(RuntimeError):
        services.tree_allocate(tree="example", body={"id": "b", "groupID": "N",
                                                     "request": {"cpu": 1}})
    assert _states(trees_get().manager) == before
    with pytest.raises(RuntimeError):
        services.tree_release(tree="example", consumer="a")
    assert _states(trees_get().manager) == before
    with pytest.raises(QuotaTreeError):
        services.tree_release(tree="example", consumer="b")


def _load(server, token, stop: threading.Event, acknowledged: dict, seed: int) -> None:
    rng = random.Random(seed)
    connection = server.connection(timeout=30)
    step = 0
    while not stop.is_set():
        step += 1
        try:
            if acknowledged and rng.random() < 0.3:
                cid = rng.choice(sorted(acknowledged))
                status, _ = server.request("DELETE", f"{TREES}/example/allocations/{cid}", None,
                                           token, connection)
                if status == 204:
                    acknowledged.pop(cid, None)
                continue
            cid = f"s{seed}-{step}"
            status, answer = server.request("POST", f"{TREES}/example/allocations", {
                "id": cid, "groupID": rng.choice(LEAVES), "request": {"cpu": rng.randint(1, 2)},
                "priority": rng.randint(0, 1)}, token, connection)
        except OSError:
            return  # the server is gone
        if status == 201:
            acknowledged[cid] = answer["node"]
            for lost in answer["preempted"]:
                acknowledged.pop(lost, None)


def test_a_killed_server_rebuilds_every_tree_as_it_was_acknowledged(tmp_path):
    server = ServerProcess(tmp_path, free_port(), config_yaml=CAPPED_YAML)
    with server.running():
        token = server.token("admin")
        nodes = [(name, parent, quota * 4) for name, parent, quota in EXAMPLE_NODES]
        assert server.request("PUT", f"{TREES}/example",
                              tree_document("example", ["cpu"], nodes), token)[0] == 201
        acknowledged: dict[str, str] = {}
        stop = threading.Event()
        worker = threading.Thread(target=_load, args=(server, token, stop, acknowledged, 1))
        worker.start()
        time.sleep(1.5)
        server.kill()  # mid-load
        stop.set()
        worker.join(timeout=30)
        assert len(acknowledged) > 5, "too few allocations to show anything"

        server.start()
        server.wait_ready()
        status, listed = server.request("GET", f"{TREES}/example/allocations", None, token)
        assert status == 200
        served = {c["id"] for c in listed["consumers"]}
        # every acknowledged and unreleased consumer is back, except those the operation cut
        # off by the kill took away (stored, its answer lost): a release, or an allocation that
        # preempted them; their stored story says so. At most that operation's own consumer
        # is there unacknowledged.
        for missing in set(acknowledged) - served:
            story = server.request("GET", f"/api/v1/consumers/{missing}", None, token)[1]
            assert story["events"][0]["kind"] in ("preempted", "released"), story
        assert len(served - set(acknowledged)) <= 1
        status, view = server.request("GET", f"{TREES}/example", None, token)
        for node in view["nodes"]:
            assert node["allocated"]["cpu"] <= node["quota"]["cpu"]

        # killed again with nothing in flight: the tree comes back exactly, node by node and
        # in the order of the consumers at each node
        server.kill()
        server.start()
        server.wait_ready()
        again = server.request("GET", f"{TREES}/example", None, token)[1]
        assert again["nodes"] == view["nodes"]
        assert server.request("GET", f"{TREES}/example/allocations", None, token)[1] == listed

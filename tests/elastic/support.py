"""Shared pieces of the elastic quota tests: the endpoints, and readers of the tree."""

from __future__ import annotations

ELASTIC = "/api/v1/partitions/default/elastic"
TOTAL = f"{ELASTIC}/cluster-total"
DEMAND = f"{ELASTIC}/demand"
SETTINGS = f"{ELASTIC}/settings"
EXPLAIN = f"{ELASTIC}/explain"
OVER_USE = f"{ELASTIC}/over-use"
ALLOCATIONS = "/api/v1/partitions/default/allocations"

# Spec K1: each leaf's demand, and the runtimes the fair split gives them from a pool of 100.
K1_DEMAND = {"root.a": 5, "root.b": 20, "root.c": 40, "root.d": 70}
K1_RUNTIME = {"root.a": 5, "root.b": 20, "root.c": 35, "root.d": 40}


def gpus(count: int) -> dict[str, int]:
    return {"gpu": count}


def row(view: dict, path: str) -> dict:
    return next(queue for queue in view["queues"] if queue["queuePath"] == path)


def runtimes(view: dict, paths) -> dict[str, int]:
    """Each queue's runtime of GPUs."""
    return {path: row(view, path)["runtime"].get("gpu", 0) for path in paths}


def k1(api) -> dict:
    """The K1 example set up through the API: a total of 100 and each leaf's demand."""
    assert api.put(TOTAL, gpus(100), format="json").status_code == 200
    for path, count in K1_DEMAND.items():
        answer = api.put(DEMAND, {"queuePath": path, "resource": gpus(count)}, format="json")
        assert answer.status_code == 200, answer.json()
    return api.get(ELASTIC).json()


def allocation(key: str, *, queue: str, count: int, user: str = "alice", app: str = "app-1"):
    return {
        "allocationKey": key, "applicationId": app, "queuePath": queue, "user": user,
        "groups": [], "resource": gpus(count),
    }

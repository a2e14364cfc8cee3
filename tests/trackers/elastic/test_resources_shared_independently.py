"""Spec K6: every resource is shared on its own; cpu can be borrowed while memory is not."""

from __future__ import annotations

from tests.trackers.elastic.support import GI, build, eq


def two(cpu: int, mem_gi: int) -> dict[str, int]:
    return {"cpu": cpu, "memory": mem_gi * GI}


QUEUES = [eq("test1", two(50, 80), two(96, 160)), eq("test2", two(40, 80), two(96, 160))]


def test_k6_update_quota_delta_request():
    tree = build(*QUEUES, total=two(96, 160), demand={"test1": two(120, 200)})
    assert tree.state("root.test1").limited_request == two(96, 160)
    assert tree.runtime("root.test1") == two(96, 160)
    tree.set_demand("root.test2", two(150, 210))
    tree.refresh()
    assert tree.runtime("root.test1") == two(53, 80)
    assert tree.runtime("root.test2") == two(43, 80)


def test_k6_update_quota_request():
    tree = build(*QUEUES, total=two(96, 160), demand={"test1": two(60, 100)})
    assert tree.runtime("root.test1") == two(60, 100)
    assert tree.runtime("root.test2") == two(0, 0)
    tree.set_demand("root.test1", two(120, 200))
    tree.set_demand("root.test2", two(150, 210))
    tree.refresh()
    assert tree.runtime("root.test1") == two(53, 80)
    assert tree.runtime("root.test2") == two(43, 80)

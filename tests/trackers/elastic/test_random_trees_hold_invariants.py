"""Random trees: the split's guarantees hold everywhere, and refresh() equals a fresh tree."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackers.elastic import ElasticQueue, ElasticTree
from trackers.elastic.tree import ROOT

KINDS = ("cpu", "memory", "gpu")
MAX_DEPTH = 4
SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def amounts(draw, kinds, high):
    chosen = draw(st.lists(st.sampled_from(kinds), unique=True))
    return {kind: draw(st.integers(0, high)) for kind in chosen}


@st.composite
def queue_lists(draw):
    kinds = KINDS[: draw(st.integers(1, 3))]
    queues = [ElasticQueue("root", None, {}, {}, {})]
    depth = {"root": 0}
    for n in range(1, draw(st.integers(1, 30))):
        parent = draw(st.sampled_from([p for p, d in depth.items() if d < MAX_DEPTH]))
        path = f"{parent}.q{n}"
        depth[path] = depth[parent] + 1
        keys = draw(st.one_of(st.just(list(kinds)), st.lists(st.sampled_from(kinds), unique=True)))
        maximum = {kind: draw(st.integers(0, 120)) for kind in keys}
        queues.append(
            ElasticQueue(
                path=path,
                parent=parent,
                min=amounts(draw, kinds, 60),
                max=maximum,
                weight={kind: draw(st.integers(0, 5)) for kind in maximum},
                allow_lent=draw(st.booleans()),
                system=draw(st.integers(0, 5)) == 0,
            )
        )
    return kinds, queues


@st.composite
def worlds(draw):
    kinds, queues = draw(queue_lists())
    parents = {q.parent for q in queues}
    leaves = [q.path for q in queues if q.path not in parents]
    paths = [q.path for q in queues]
    ops = []
    for _ in range(draw(st.integers(0, 25))):
        what = draw(st.sampled_from(("used", "demand", "total", "refresh", "guaranteed")))
        if what in ("used", "guaranteed"):
            ops.append((what, draw(st.sampled_from(paths)), amounts(draw, kinds, 80)))
        elif what == "demand":
            ops.append((what, draw(st.sampled_from(leaves)), amounts(draw, kinds, 150)))
        elif what == "total":
            ops.append((what, None, amounts(draw, kinds, 300)))
        else:
            ops.append((what, None, None))
    options = {"scale_min": draw(st.booleans()), "guarantee_usage": draw(st.integers(0, 4)) == 0}
    return queues, amounts(draw, kinds, 300), ops, options


def fresh(queues, total, used, demand, options, guaranteed=None):
    tree = ElasticTree(queues, total=total, **options)
    for path, value in used.items():
        tree.set_used(path, value)
    for path, value in demand.items():
        tree.set_demand(path, value)
    for path, value in (guaranteed or {}).items():
        tree.set_guaranteed(path, value)
    tree.refresh()
    return tree


@SETTINGS
@given(worlds())
def test_refresh_equals_a_fresh_tree_and_recompute(world):
    queues, total, ops, options = world
    tree = ElasticTree(queues, total=total, **options)
    used: dict[str, dict[str, int]] = {}
    demand: dict[str, dict[str, int]] = {}
    guaranteed: dict[str, dict[str, int]] = {}
    for what, path, value in ops:
        if what == "guaranteed":
            tree.set_guaranteed(path, value)
            guaranteed[path] = value
        elif what == "used":
            tree.set_used(path, value)
            used[path] = value
        elif what == "demand":
            tree.set_demand(path, value)
            demand[path] = value
        elif what == "total":
            tree.set_total(value)
            total = value
        else:
            tree.refresh()
    tree.refresh()
    states = tree.states()
    assert states == fresh(queues, total, used, demand, options, guaranteed).states()
    tree.recompute()
    assert tree.states() == states


@SETTINGS
@given(worlds())
def test_every_split_hands_out_exactly_what_is_left(world):
    queues, total, ops, options = world
    used = {path: value for what, path, value in ops if what == "used"}
    demand = {path: value for what, path, value in ops if what == "demand"}
    guaranteed = {path: value for what, path, value in ops if what == "guaranteed"}
    tree = fresh(queues, total, used, demand, options, guaranteed)
    nodes = tree._nodes
    for parent in nodes:
        for share in parent.shares:
            kind = share.kind
            pool = parent.pool[kind]
            trace: list[dict] = []
            _, _, effective = tree._share(share, pool, trace)
            for step in trace[1:]:  # each pass of step 2 hands out exactly what was left
                if not step.get("stopped"):
                    shares = sum(step["base"].values()) + len(step["extra"])
                    assert shares == step["left"]
            members = [nodes[i] for i in share.members]
            requests = [m.limited[kind] for m in members]
            runtimes = [m.runtime[kind] for m in members]
            first = [
                low if request > low or not lends else request
                for request, low, lends in zip(requests, effective, share.lends, strict=True)
            ]
            for rt, request, low, lends in zip(
                runtimes, requests, effective, share.lends, strict=True
            ):
                assert rt <= max(request, low)
                if lends and request <= low:
                    assert rt == request
            left = pool - sum(first)
            if left <= 0:
                assert runtimes == first
                continue
            handed = sum(runtimes) - sum(first)
            assert handed <= left  # nothing invented
            if handed < left:  # what stays must have no hungry sibling with a weight to take it
                assert all(
                    weight == 0
                    for rt, request, low, weight in zip(
                        runtimes, requests, effective, share.weights, strict=True
                    )
                    if request > low and rt < request
                )


@SETTINGS
@given(worlds())
def test_root_system_and_unshared_figures(world):
    queues, total, ops, options = world
    used = {path: value for what, path, value in ops if what == "used"}
    tree = fresh(queues, total, used, {}, options)
    nodes = tree._nodes
    assert tree.runtime("root") == tree.pool
    for node in nodes:
        if node.queue.system:
            assert node.runtime == node.max
        elif node.index != ROOT:
            assert set(node.runtime) == set(node.max)
            parent = nodes[node.parent]
            for kind in node.max:
                if kind not in parent.keys:
                    assert node.runtime[kind] == 0
        if not node.leaf:
            unallocated = tree.unallocated(node.path)
            assert all(value > 0 for value in unallocated.values())

"""``Engine.names_at``: the users or groups whose objects (``users_usage``, ``groups_usage``)
hold a queue path, found without building those objects: usage there or below, or a limit that
names them there or below (a queue page lists them this way at 10,000 users)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.trackers.ugm.support import M, fill, lim, make_engine, tree_paths

PATHS = ["root", "root.a", "root.a.b", "root.a-x", "root.a-x.c", "root.z"]
LEAVES = ["root.a.b", "root.a-x.c", "root.z"]


@settings(max_examples=60, deadline=None)
@given(
    fills=st.lists(st.tuples(st.sampled_from([*LEAVES, "root.a"]),
                             st.sampled_from(["u0", "u1", "u2"]),
                             st.sampled_from([(), ("dev",), ("ops",)])), max_size=10),
    named=st.dictionaries(st.sampled_from(LEAVES), st.sampled_from(["u3", "u1", "qa"]),
                          max_size=3),
)
def test_the_names_at_each_queue_are_those_whose_objects_hold_it(fills, named):
    limits = {path: [lim(groups=[name], res=M(100)) if name == "qa"
                     else lim(users=[name], res=M(100))]
              for path, name in named.items()}
    engine = make_engine(limits=limits)
    for number, (path, user, groups) in enumerate(fills):
        fill(engine, path, user, M(1), app=f"app-{number}", groups=groups)
    # One released again, so a tracker that emptied is among the cases.
    if fills:
        path, user, _ = fills[0]
        engine.decrease(path, "app-0", user, M(1), remove_app=True)
    for path in PATHS:
        assert engine.names_at("users", path) == sorted(
            obj["userName"] for obj in engine.users_usage() if path in tree_paths(obj["queues"])
        ), path
        assert engine.names_at("groups", path) == sorted(
            obj["groupName"] for obj in engine.groups_usage() if path in tree_paths(obj["queues"])
        ), path

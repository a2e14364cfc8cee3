"""Spec 2.2 and D9: malformed engine calls raise InvalidRequest and change nothing."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import M, fill, lim, make_engine, snapshot
from trackers import InvalidRequest, TrackersError

BAD_PATHS = [
    None,
    "",
    "a",
    "roo",
    "rootx",
    "roota.b",
    "root.",
    ".root",
    "root..a",
    "root.a.",
    "root.a b",
    "root.a$",
    "root.a!",
    "root.a,b",
    "root." + "x" * 65,
    "root.a." + "y" * 65,
    "parent.leaf",
    " root.a",
    "root.a ",
    "root.a.b.c.bad name",
    "root.ä",
    ["root", "a"],
    {"root": "a"},
    7,
    "root." + ".".join(["q"] * 64),
]
GOOD_PATHS = [
    "root",
    "root.a",
    "root.parent.leaf",
    "root." + "x" * 64,
    "root.a-b_c:d#e/f@g",
    "root.new.dynamic.queue",
    "root.0",
]
BAD_USERS = [
    None,
    "",
    "1user",
    "user space",
    "rejected!name",
    "a$b",
    "$",
    "-x",
    ".x",
    "ä",
    ["alice"],
    3,
]
GOOD_USERS = [
    "alice",
    "user.lastname",
    "user@domain",
    "system:serviceaccount:ns:sa",
    "name$",
    "_x",
    "A",
    "test_a-b_c@#d@do:mai/n.com",
]
BAD_APPS = [None, "", ["app"], 1]
BAD_RESOURCES = [
    None,
    [],
    "10",
    10,
    {"memory": 1.5},
    {"memory": "10"},
    {"memory": True},
    {"memory": False},
    {"memory": -1},
    {"memory": 1, "vcore": -1000},
    {"memory": None},
]
BAD_GROUPS = ["dev", 5, [1], [None], ("dev", 2), {"dev": 1}, [["dev"]]]


@pytest.fixture
def engine():
    engine = make_engine(
        limits={"root": [lim(users=["*"], res=M(100), apps=5), lim(groups=["dev"], apps=5)]}
    )
    fill(engine, "root.a", "alice", M(10), app="a1", groups=["dev"])
    return engine


def refused(engine, call, *args):
    before = snapshot(engine)
    with pytest.raises(InvalidRequest):
        getattr(engine, call)(*args)
    assert snapshot(engine) == before


# ------------------------------------------------------------------ increase


@pytest.mark.parametrize("path", BAD_PATHS)
def test_increase_bad_path(engine, path):
    refused(engine, "increase", path, "a1", "alice", ["dev"], M(1))


@pytest.mark.parametrize("app", BAD_APPS)
def test_increase_bad_app(engine, app):
    refused(engine, "increase", "root.a", app, "alice", ["dev"], M(1))


@pytest.mark.parametrize("user", BAD_USERS)
def test_increase_bad_user(engine, user):
    refused(engine, "increase", "root.a", "a9", user, ["dev"], M(1))


@pytest.mark.parametrize("resource", BAD_RESOURCES)
def test_increase_bad_resource(engine, resource):
    refused(engine, "increase", "root.a", "a1", "alice", ["dev"], resource)


@pytest.mark.parametrize("groups", BAD_GROUPS)
def test_increase_bad_groups(engine, groups):
    refused(engine, "increase", "root.a", "a9", "bob", groups, M(1))


@pytest.mark.parametrize("path", GOOD_PATHS)
def test_increase_accepts_valid_paths(engine, path):
    assert engine.increase(path, "new", "bob", [], M(1)).allowed


@pytest.mark.parametrize("user", GOOD_USERS)
def test_increase_accepts_valid_user_names(engine, user):
    assert engine.increase("root.a", "new", user, [], M(1)).allowed
    assert engine.user_usage(user)["userName"] == user


@pytest.mark.parametrize("groups", [[], (), ["dev"], ("dev", "ops"), ["x" * 300]])
def test_increase_accepts_lists_and_tuples_of_groups(engine, groups):
    assert engine.increase("root.a", "new", "bob", groups, {}).allowed


@pytest.mark.parametrize(
    "resource", [{}, {"memory": 0}, {"memory": 10**15}, {"nvidia.com/gpu": 1, "vcore": 0}]
)
def test_increase_accepts_valid_resources(resource):
    engine = make_engine()
    assert engine.increase("root.a", "new", "bob", [], resource).allowed


# ------------------------------------------------------------------ decrease


@pytest.mark.parametrize("path", BAD_PATHS)
def test_decrease_bad_path(engine, path):
    refused(engine, "decrease", path, "a1", "alice", M(1), False)


@pytest.mark.parametrize("app", BAD_APPS)
def test_decrease_bad_app(engine, app):
    refused(engine, "decrease", "root.a", app, "alice", M(1), False)


@pytest.mark.parametrize("user", BAD_USERS)
def test_decrease_bad_user(engine, user):
    refused(engine, "decrease", "root.a", "a1", user, M(1), False)


@pytest.mark.parametrize("resource", BAD_RESOURCES)
def test_decrease_bad_resource(engine, resource):
    refused(engine, "decrease", "root.a", "a1", "alice", resource, False)


# ------------------------------------------------------------------ checks


@pytest.mark.parametrize("call", ["headroom", "can_run_app"])
@pytest.mark.parametrize("path", BAD_PATHS)
def test_checks_bad_path(engine, call, path):
    refused(engine, call, path, "a1", "alice", ["dev"])


@pytest.mark.parametrize("call", ["headroom", "can_run_app"])
@pytest.mark.parametrize("app", BAD_APPS)
def test_checks_bad_app(engine, call, app):
    refused(engine, call, "root.a", app, "alice", ["dev"])


@pytest.mark.parametrize("call", ["headroom", "can_run_app"])
@pytest.mark.parametrize("user", BAD_USERS)
def test_checks_bad_user(engine, call, user):
    refused(engine, call, "root.a", "a1", user, ["dev"])


@pytest.mark.parametrize("call", ["headroom", "can_run_app"])
@pytest.mark.parametrize("groups", BAD_GROUPS)
def test_checks_bad_groups(engine, call, groups):
    refused(engine, call, "root.a", "a9", "bob", groups)


def test_invalid_request_is_a_library_error():
    assert issubclass(InvalidRequest, TrackersError)
    assert issubclass(InvalidRequest, ValueError)

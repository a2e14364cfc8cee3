"""Shared helpers for the user/group quota engine tests (spec ugm.md sections 2 and 3).

Configs are built as Python data and dumped to YAML, then read with ``trackers.parse_config`` like
any admin-written document. The default queue tree is the SK skeleton of spec section 4:

    root
    ├── parent
    │   ├── child1
    │   ├── child2
    │   └── leaf
    ├── a
    └── b

Limits and queue settings are attached by full path; paths missing from the tree are added as
plain queues, so ``limits={"root.x.y": [...]}`` creates ``root.x`` and ``root.x.y``.

Test modules import these helpers with ``from tests.trackers.ugm.support import ...``;
``tests/trackers/ugm/conftest.py`` registers the ``engine_for`` fixture.
"""

from __future__ import annotations

import copy
import json

import yaml

SK_TREE: dict = {"parent": {"child1": {}, "child2": {}, "leaf": {}}, "a": {}, "b": {}}


# --------------------------------------------------------------------------- config building


def lim(users=(), groups=(), res=None, apps=0, text=None) -> dict:
    """One ``limits:`` entry. ``res`` values are written as quantity strings (``100`` -> "100")."""
    entry: dict = {}
    if text is not None:
        entry["limit"] = text
    if users:
        entry["users"] = list(users)
    if groups:
        entry["groups"] = list(groups)
    if res:
        entry["maxresources"] = {kind: str(value) for kind, value in res.items()}
    if apps:
        entry["maxapplications"] = apps
    return entry


def qconf(max=None, guaranteed=None, apps=0, properties=None) -> dict:
    """A queue's keys: ``resources`` (max, guaranteed), ``maxapplications``, ``properties``."""
    queue: dict = {}
    resources: dict = {}
    if guaranteed:
        resources["guaranteed"] = {k: str(v) for k, v in guaranteed.items()}
    if max:
        resources["max"] = {k: str(v) for k, v in max.items()}
    if resources:
        queue["resources"] = resources
    if apps:
        queue["maxapplications"] = apps
    if properties:
        queue["properties"] = dict(properties)
    return queue


def _ensure(tree: dict, path: str) -> None:
    parts = path.split(".")
    assert parts[0] == "root", path
    node = tree
    for part in parts[1:]:
        node = node.setdefault(part, {})


def partition_doc(
    name: str = "default",
    limits: dict | None = None,
    queues: dict | None = None,
    tree: dict | None = None,
    partition_limits: list | None = None,
) -> dict:
    """One partition as a plain dict, ready for YAML."""
    tree = copy.deepcopy(SK_TREE if tree is None else tree)
    limits = limits or {}
    queues = queues or {}
    for path in [*limits, *queues]:
        _ensure(tree, path)

    def build(queue_name: str, path: str, children: dict) -> dict:
        queue: dict = {"name": queue_name}
        queue.update(queues.get(path, {}))
        if limits.get(path):
            queue["limits"] = limits[path]
        if children:
            queue["queues"] = [
                build(child, f"{path}.{child}", grandchildren)
                for child, grandchildren in children.items()
            ]
        return queue

    doc: dict = {"name": name, "queues": [build("root", "root", tree)]}
    if partition_limits:
        doc["limits"] = partition_limits
    return doc


def config_yaml(*partitions: dict, **kwargs) -> str:
    """A whole document: the given partition dicts, or one built from ``kwargs``."""
    if not partitions:
        partitions = (partition_doc(**kwargs),)
    return yaml.safe_dump({"partitions": list(partitions)}, sort_keys=False)


def parse(text: str):
    """The Config of a YAML text (it must be valid)."""
    from trackers import parse_config

    return parse_config(text)


def partition_for(yaml_text: str | None = None, /, **kwargs):
    """The first partition of a YAML text, or of a config built from ``kwargs``."""
    text = yaml_text if yaml_text is not None else config_yaml(**kwargs)
    return parse(text).partitions[0]


def make_engine(yaml_text: str | None = None, /, **kwargs):
    from trackers import Engine

    return Engine(partition_for(yaml_text, **kwargs))


# --------------------------------------------------------------------------- inspection


def M(amount: int) -> dict:
    """A memory-only resource."""
    return {"memory": amount}


def find_node(node: dict | None, path: str, key: str = "queuePath") -> dict | None:
    """The node with ``path`` in a tree of REST nodes (``children`` recursive), or None."""
    if node is None:
        return None
    if node[key] == path:
        return node
    for child in node.get("children", []):
        if path == child[key] or path.startswith(child[key] + "."):
            return find_node(child, path, key)
    return None


def tree_paths(node: dict | None, key: str = "queuePath") -> set[str]:
    if node is None:
        return set()
    paths = {node[key]}
    for child in node.get("children", []):
        paths |= tree_paths(child, key)
    return paths


def user_node(engine, user: str, path: str) -> dict | None:
    obj = engine.user_usage(user)
    return None if obj is None else find_node(obj["queues"], path)


def group_node(engine, group: str, path: str) -> dict | None:
    obj = engine.group_usage(group)
    return None if obj is None else find_node(obj["queues"], path)


def queue_node(engine, path: str) -> dict | None:
    return find_node(engine.queues_usage(), path, key="queuename")


def used(engine, user: str, path: str) -> dict:
    """resourceUsage of the user's node at ``path`` ({} when absent or empty)."""
    node = user_node(engine, user, path)
    return {} if node is None else node.get("resourceUsage", {})


def group_used(engine, group: str, path: str) -> dict:
    node = group_node(engine, group, path)
    return {} if node is None else node.get("resourceUsage", {})


def running(engine, user: str, path: str) -> list:
    node = user_node(engine, user, path)
    return [] if node is None else node.get("runningApplications", [])


def user_names(engine) -> list[str]:
    return [obj["userName"] for obj in engine.users_usage()]


def group_names(engine) -> list[str]:
    return [obj["groupName"] for obj in engine.groups_usage()]


def snapshot(engine) -> str:
    """Everything observable about an engine's state, as one comparable string."""
    return json.dumps(
        {
            "seq": engine.seq,
            "users": engine.users_usage(),
            "groups": engine.groups_usage(),
            "queues": engine.queues_usage(),
        },
        sort_keys=True,
    )


def fill(engine, path: str, user: str, amount: dict, app: str = "filler", groups=()) -> None:
    """An increase that must be allowed (test set-up)."""
    decision = engine.increase(path, app, user, list(groups), amount)
    assert decision.allowed, decision.message

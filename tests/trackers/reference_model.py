"""A deliberately naive reference model of the user/group quota engine (spec ugm.md 2.1-2.9).

Written straight from the spec, with no caching and no cleverness, so that it is obviously right:

* usage is never stored per node: every accepted increase and every decrease is an entry of a
  ledger ``(user, group, app, path, signed amounts)``, and the usage of a node is the sum of the
  ledger entries at or below it (spec 2.1);
* running apps are plain sets per (tracker kind, tracker name, queue path), updated on every node
  of the path (2.1, 2.7);
* caps are looked up in the config on every question (2.3), groups are resolved by walking the
  config from the leaf up (2.4), and the decision follows 2.5 in the engine's fixed check order.

It also holds the hypothesis strategy that generates valid configs (spec 1.4) for a small fixed
queue skeleton, together with their YAML text, and the reference's own reading of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from hypothesis import strategies as st

WILD = "*"
USERS = ("alice", "bob", "carol")
GROUPS = ("dev", "ops")  # named in configs
MEMBER_GROUPS = ("dev", "ops", "qa")  # what users may belong to; "qa" is never configured
TYPES = ("memory", "vcore")
QUEUES = ("root", "root.a", "root.a.x", "root.a.y", "root.b")
CHILDREN = {"root": ("a", "b"), "root.a": ("x", "y"), "root.a.x": (), "root.a.y": (), "root.b": ()}
# Requests may also go to queues that are not configured (dynamic queues, spec 2.2).
REQUEST_PATHS = (*QUEUES, "root.c", "root.b.dyn")

# Reasons, in the engine's check order.
MAX_APPS = "maxApplications"
QUEUE_MAX_APPS = "queueMaxApplications"
USER_QUOTA = "userQuota"
GROUP_QUOTA = "groupQuota"
QUEUE_QUOTA = "queueQuota"


def prefixes(path: str) -> list[str]:
    """``root.a.x`` -> ``[root, root.a, root.a.x]``."""
    parts = path.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def at_or_below(path: str, node: str) -> bool:
    return path == node or path.startswith(node + ".")


ALL_PATHS = sorted({p for path in REQUEST_PATHS for p in prefixes(path)})


def quantity(kind: str, value: int) -> int:
    """What a plain-integer quantity string means (spec 1.3): vcore is read as cores."""
    return value * 1000 if kind == "vcore" else value


# --------------------------------------------------------------------------- config


@dataclass
class RefLimit:
    users: tuple[str, ...]
    groups: tuple[str, ...]
    maxres: dict[str, int]  # base units (vcore in millicores)
    maxapps: int


@dataclass
class RefQueue:
    path: str
    maxres: dict[str, int] = field(default_factory=dict)  # base units
    maxapps: int = 0
    limits: list[RefLimit] = field(default_factory=list)


@dataclass
class RefConfig:
    queues: dict[str, RefQueue]
    yaml: str

    def __repr__(self) -> str:  # shown in falsifying examples
        return f"RefConfig(yaml=\n{self.yaml})"


def _min_res(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    """Component-wise minimum where a missing type is unlimited."""
    out = dict(a)
    for kind, value in b.items():
        out[kind] = min(out.get(kind, value), value)
    return out


@st.composite
def configs(draw) -> RefConfig:
    """A valid config for the fixed skeleton, built from the root down.

    Validity (spec 1.4) is kept conservatively: a limit naming X at queue Q fits every cap that
    any ancestor gives to X, and (for a named X) every cap of an ancestor's wildcard (H1/H2);
    if any of those caps apps, the new limit sets a non-zero maxapplications within them (H3/H4);
    it also fits Q's own resources.max (L12) and maxapplications (L11). Queue caps follow A1/A2
    and R2. Wildcards come after named entries (L4/L7) and a group wildcard only after a named
    group (L8); maxresources has a positive value (L9) and a limit caps something (L10).
    """
    queues: dict[str, RefQueue] = {path: RefQueue(path) for path in QUEUES}
    raw_queue: dict[str, dict] = {path: {} for path in QUEUES}

    # Queue quotas (never on root: rule S2).
    for path in ("root.a", "root.b"):
        if draw(st.booleans()):
            maxres = {}
            for kind in TYPES:
                if draw(st.booleans()):
                    top = 6 if kind == "memory" else 4
                    maxres[kind] = draw(st.integers(2 if kind == "memory" else 1, top))
            if maxres:
                raw_queue[path].setdefault("resources", {})["max"] = {
                    kind: str(value) for kind, value in maxres.items()
                }
                queues[path].maxres = {kind: quantity(kind, v) for kind, v in maxres.items()}
        if draw(st.integers(0, 3)) == 0:
            apps = draw(st.integers(1, 4))
            raw_queue[path]["maxapplications"] = apps
            queues[path].maxapps = apps
    for path in ("root.a.x", "root.a.y"):
        parent_apps = queues["root.a"].maxapps
        if parent_apps:  # A1 / A2
            apps = draw(st.integers(1, parent_apps))
        else:
            apps = draw(st.sampled_from([0, 0, 0, 1, 2]))
        if apps:
            raw_queue[path]["maxapplications"] = apps
            queues[path].maxapps = apps

    # Limits, root first, so every ancestor's caps are known.
    # caps[path][kind][name] = (maxres in config units, maxapps)
    caps: dict[str, dict[str, dict[str, tuple[dict[str, int], int]]]] = {}
    for path in QUEUES:
        caps[path] = {"users": {}, "groups": {}}
        if draw(st.integers(0, 4)) == 0:
            continue  # no limits at this queue
        users = list(draw(st.permutations(USERS)))[: draw(st.integers(0, len(USERS)))]
        if draw(st.booleans()):
            users.append(WILD)
        groups = list(draw(st.permutations(GROUPS)))[: draw(st.integers(0, len(GROUPS)))]
        if groups and draw(st.booleans()):
            groups.append(WILD)  # L8: only after a named group
        if not users and not groups:
            continue
        n_entries = draw(st.integers(1, len(users) + len(groups)))
        user_slot = sorted(
            draw(st.lists(st.integers(0, n_entries - 1), min_size=len(users), max_size=len(users)))
        )
        group_slot = sorted(
            draw(
                st.lists(st.integers(0, n_entries - 1), min_size=len(groups), max_size=len(groups))
            )
        )
        written_max = raw_queue[path].get("resources", {}).get("max", {})
        own_max = {kind: int(value) for kind, value in written_max.items()}
        own_apps = queues[path].maxapps
        raw_limits = []
        for index in range(n_entries):
            e_users = [u for u, s in zip(users, user_slot, strict=True) if s == index]
            e_groups = [g for g, s in zip(groups, group_slot, strict=True) if s == index]
            if not e_users and not e_groups:
                continue  # L1
            bound_res = dict(own_max) if path != "root" else {}
            bound_apps = 0  # 0: no ancestor caps apps for these names
            for kind, names in (("users", e_users), ("groups", e_groups)):
                for name in names:
                    for ancestor in prefixes(path)[:-1]:
                        seen = caps[ancestor][kind]
                        relevant = [name] if name == WILD else [name, WILD]
                        for other in relevant:
                            if other in seen:
                                res, apps = seen[other]
                                bound_res = _min_res(bound_res, res)
                                if apps:
                                    bound_apps = min(bound_apps or apps, apps)
            maxres = {}
            for kind in TYPES:
                if draw(st.booleans()):
                    top = bound_res.get(kind, 6 if kind == "memory" else 4)
                    maxres[kind] = draw(st.integers(0, top))
            if maxres and not any(maxres.values()):  # L9: one value must be positive
                open_kinds = [k for k in TYPES if bound_res.get(k, 1) > 0]
                if open_kinds:
                    kind = draw(st.sampled_from(open_kinds))
                    maxres[kind] = draw(st.integers(1, bound_res.get(kind, 3)))
                else:
                    maxres = {}
            top_apps = min(x for x in (bound_apps, own_apps, 3) if x)
            low_apps = 1 if bound_apps or not maxres else 0  # H3/H4, L10
            apps = draw(st.integers(low_apps, top_apps))
            for name in e_users:
                caps[path]["users"][name] = (maxres, apps)
            for name in e_groups:
                caps[path]["groups"][name] = (maxres, apps)
            entry: dict = {"limit": f"{path} #{index}"}
            if e_users:
                entry["users"] = e_users
            if e_groups:
                entry["groups"] = e_groups
            if maxres:
                entry["maxresources"] = {kind: str(value) for kind, value in maxres.items()}
            if apps:
                entry["maxapplications"] = apps
            raw_limits.append(entry)
            queues[path].limits.append(
                RefLimit(
                    users=tuple(e_users),
                    groups=tuple(e_groups),
                    maxres={kind: quantity(kind, value) for kind, value in maxres.items()},
                    maxapps=apps,
                )
            )
        if raw_limits:
            raw_queue[path]["limits"] = raw_limits

    upper = draw(st.sets(st.sampled_from(QUEUES)))  # names are lower-cased on load (D7)

    def render(path: str) -> dict:
        name = path.rsplit(".", 1)[-1]
        out = {"name": name.upper() if path in upper else name, **raw_queue[path]}
        if CHILDREN[path]:
            out["queues"] = [render(f"{path}.{child}") for child in CHILDREN[path]]
        return out

    document = {"partitions": [{"name": "default", "queues": [render("root")]}]}
    # JSON is YAML, and dumping it is far cheaper than yaml.safe_dump (most of the run otherwise).
    return RefConfig(queues=queues, yaml=json.dumps(document, indent=1))


# --------------------------------------------------------------------------- the model


@dataclass
class Entry:
    """One ledger line: ``amounts`` were added (or, negated, taken) at ``path``."""

    user: str
    group: str | None
    app: str
    path: str
    amounts: dict[str, int]


class Reference:
    def __init__(self, config: RefConfig) -> None:
        self.config = config
        self.ledger: list[Entry] = []
        self.running: dict[tuple[str, str, str], set[str]] = {}  # (kind, name, path) -> apps
        self.links: dict[tuple[str, str], str | None] = {}  # (user, app) -> group or None

    # -- which limit applies (2.3) ----------------------------------------------------------

    def user_limit(self, user: str, path: str) -> RefLimit | None:
        queue = self.config.queues.get(path)
        if queue is None:
            return None
        for limit in queue.limits:
            if user in limit.users:
                return limit
        for limit in queue.limits:
            if WILD in limit.users:
                return limit
        return None

    def group_limit(self, group: str, path: str) -> RefLimit | None:
        queue = self.config.queues.get(path)
        if queue is None:
            return None
        for limit in queue.limits:
            if group in limit.groups:
                return limit
        return None

    def limit(self, kind: str, name: str, path: str) -> RefLimit | None:
        return self.user_limit(name, path) if kind == "user" else self.group_limit(name, path)

    def named_paths(self, kind: str, name: str) -> list[str]:
        """Queues where the config names this user/group (the group wildcard counts as a name)."""
        field_name = "users" if kind == "user" else "groups"
        return [
            path
            for path, queue in self.config.queues.items()
            if any(name in getattr(limit, field_name) for limit in queue.limits)
        ]

    # -- group resolution (2.4) --------------------------------------------------------------

    def resolve_group(self, path: str, groups: tuple[str, ...]) -> str | None:
        if not groups:
            return None
        for level in reversed(prefixes(path)):
            queue = self.config.queues.get(level)
            if queue is None:
                continue
            for limit in queue.limits:
                for group in limit.groups:
                    if group != WILD and group in groups:
                        return group
            for limit in queue.limits:
                if WILD in limit.groups:
                    return WILD
        return None

    # -- state ------------------------------------------------------------------------------

    def _matches(self, entry: Entry, kind: str, name: str) -> bool:
        if kind == "user":
            return entry.user == name
        if kind == "group":
            return entry.group == name
        return True  # queue: everybody

    def usage(self, kind: str, name: str, path: str) -> dict[str, int]:
        """Sum of every ledger entry of this tracker at or below ``path``, zeros pruned."""
        total: dict[str, int] = {}
        for entry in self.ledger:
            if self._matches(entry, kind, name) and at_or_below(entry.path, path):
                for resource, amount in entry.amounts.items():
                    total[resource] = total.get(resource, 0) + amount
        return {resource: amount for resource, amount in total.items() if amount != 0}

    def apps(self, kind: str, name: str, path: str) -> set[str]:
        return set(self.running.get((kind, name, path), set()))

    def app_usage(self, user: str, app: str) -> dict[str, int]:
        total: dict[str, int] = {}
        for entry in self.ledger:
            if entry.user == user and entry.app == app:
                for resource, amount in entry.amounts.items():
                    total[resource] = total.get(resource, 0) + amount
        return {resource: amount for resource, amount in total.items() if amount != 0}

    def has_node(self, kind: str, name: str, path: str) -> bool:
        """A node exists where the tracker has usage or running apps at or below it (2.7, 2.8)."""
        return any(
            self.usage(kind, name, q) or self.apps(kind, name, q)
            for q in ALL_PATHS
            if at_or_below(q, path)
        )

    # -- decisions (2.5, 2.6) ----------------------------------------------------------------

    def group_of(self, user: str, app: str, path: str, groups: tuple[str, ...]) -> str | None:
        if (user, app) in self.links:
            return self.links[(user, app)]
        return self.resolve_group(path, groups)

    def _apps_ok(self, kind: str, name: str, path: str, app: str) -> bool:
        for level in prefixes(path):
            limit = self.limit(kind, name, level)
            if limit is None or limit.maxapps == 0:
                continue
            running = self.apps(kind, name, level)
            if app not in running and len(running) + 1 > limit.maxapps:
                return False
        return True

    def _queue_apps_ok(self, path: str, app: str) -> bool:
        for level in prefixes(path):
            queue = self.config.queues.get(level)
            if queue is None or queue.maxapps == 0:
                continue
            running = self.apps("queue", "", level)
            if app not in running and len(running) + 1 > queue.maxapps:
                return False
        return True

    def headroom(self, kind: str, name: str, path: str) -> dict[str, int] | None:
        """None means unlimited."""
        room: dict[str, int] | None = None
        for level in prefixes(path):
            if kind == "queue":
                queue = self.config.queues.get(level)
                maximum = queue.maxres if queue is not None else {}
            else:
                limit = self.limit(kind, name, level)
                maximum = limit.maxres if limit is not None else {}
            if not maximum or not any(maximum.values()):
                continue
            used = self.usage(kind, name, level)
            for resource, cap in maximum.items():
                left = cap - used.get(resource, 0)
                if room is None:
                    room = {}
                room[resource] = min(room.get(resource, left), left)
        return room

    @staticmethod
    def fits(request: dict[str, int], room: dict[str, int] | None) -> bool:
        if room is None:
            return True
        return all(amount <= max(0, room[r]) for r, amount in request.items() if r in room)

    def decide(
        self, path: str, app: str, user: str, groups: tuple[str, ...], request: dict[str, int]
    ) -> tuple[str | None, str | None]:
        """(denial reason or None, the group the app counts against)."""
        group = self.group_of(user, app, path, groups)
        if not self._apps_ok("user", user, path, app):
            return MAX_APPS, group
        if group is not None and not self._apps_ok("group", group, path, app):
            return MAX_APPS, group
        if not self._queue_apps_ok(path, app):
            return QUEUE_MAX_APPS, group
        if not self.fits(request, self.headroom("user", user, path)):
            return USER_QUOTA, group
        if group is not None and not self.fits(request, self.headroom("group", group, path)):
            return GROUP_QUOTA, group
        if not self.fits(request, self.headroom("queue", "", path)):
            return QUEUE_QUOTA, group
        return None, group

    def _trackers(self, user: str, group: str | None) -> list[tuple[str, str]]:
        out = [("user", user), ("queue", "")]
        if group is not None:
            out.append(("group", group))
        return out

    def increase(self, path: str, app: str, user: str, group: str | None, request) -> None:
        self.ledger.append(Entry(user, group, app, path, dict(request)))
        for kind, name in self._trackers(user, group):
            for level in prefixes(path):
                self.running.setdefault((kind, name, level), set()).add(app)
        self.links.setdefault((user, app), group)

    def decrease(self, path: str, app: str, user: str, request, remove_app: bool) -> bool:
        """Apply a decrease; False (and nothing changed) when the user has no node there (D8)."""
        if not self.has_node("user", user, path):
            return False
        group = self.links.get((user, app))
        # The test only releases an app in its own queue, where its group always has a node.
        assert group is None or self.has_node("group", group, path), "generator bug"
        self.ledger.append(Entry(user, group, app, path, {r: -a for r, a in request.items()}))
        if remove_app:
            for kind, name in self._trackers(user, group):
                for level in prefixes(path):
                    self.running.get((kind, name, level), set()).discard(app)
            self.links.pop((user, app), None)
        return True

    # -- expected REST objects (section 3, visibility 2.8) -----------------------------------

    def _tree(self, kind: str, name: str) -> dict | None:
        paths = {p for p in ALL_PATHS if self.has_node(kind, name, p)}
        for path in self.named_paths(kind, name):
            paths.update(prefixes(path))
        if not paths:
            return None

        def build(path: str) -> dict:
            out: dict = {"queuePath": path}
            used = self.usage(kind, name, path)
            if used:
                out["resourceUsage"] = used
            running = self.apps(kind, name, path)
            if running:
                out["runningApplications"] = sorted(running)
            limit = self.limit(kind, name, path)
            if limit is not None:
                if limit.maxres:
                    out["maxResources"] = dict(limit.maxres)
                if limit.maxapps:
                    out["maxApplications"] = limit.maxapps
            kids = sorted(p for p in paths if p.rsplit(".", 1)[0] == path and p != path)
            if kids:
                out["children"] = [build(kid) for kid in kids]
            return out

        return build("root")

    def user_object(self, user: str) -> dict | None:
        tree = self._tree("user", user)
        if tree is None:
            return None
        out: dict = {"userName": user}
        linked = {app: g for (u, app), g in self.links.items() if u == user and g is not None}
        if linked:
            out["groups"] = linked
        out["queues"] = tree
        return out

    def group_object(self, group: str) -> dict | None:
        tree = self._tree("group", group)
        if tree is None:
            return None
        out: dict = {"groupName": group}
        apps = sorted(app for (_, app), g in self.links.items() if g == group)
        if apps:
            out["applications"] = apps
        out["queues"] = tree
        return out

    def queue_tree(self) -> dict:
        paths = set(QUEUES) | {p for p in ALL_PATHS if self.has_node("queue", "", p)}

        def build(path: str) -> dict:
            out: dict = {"queuename": path}
            queue = self.config.queues.get(path)
            if queue is not None and queue.maxres:
                out["maxResource"] = dict(queue.maxres)
            used = self.usage("queue", "", path)
            if used:
                out["allocatedResource"] = used
            if queue is not None and queue.maxapps:
                out["maxRunningApps"] = queue.maxapps
            out["runningApps"] = len(self.apps("queue", "", path))
            kids = sorted(p for p in paths if p.rsplit(".", 1)[0] == path and p != path)
            if kids:
                out["children"] = [build(kid) for kid in kids]
            return out

        return build("root")

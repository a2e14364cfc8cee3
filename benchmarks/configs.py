"""Generated configurations for the benchmarks: large, realistic and valid.

Caps shrink with depth so the hierarchical rules (H1-H4) hold: every deeper cap for a name, or for
the wildcard, fits the caps of the same name above it.
"""

from __future__ import annotations

import yaml


def _limits(depth: int, users: list[str], groups: list[str]) -> list[dict]:
    """Named users, the user wildcard, named groups, then the group wildcard (rules L4, L7, L8)."""
    memory = f"{256 - 32 * depth}Gi"
    vcore = str(128 - 16 * depth)
    apps = 200 - 20 * depth
    limits = [
        {
            "limit": f"named users at depth {depth}",
            "users": users,
            "maxresources": {"memory": memory, "vcore": vcore, "nvidia.com/gpu": str(9 - depth)},
            "maxapplications": apps,
        },
        {
            "limit": "every other user",
            "users": ["*"],
            "maxresources": {"memory": memory, "vcore": vcore},
            "maxapplications": apps,
        },
    ]
    if groups:
        limits.append(
            {
                "limit": "teams",
                "groups": groups,
                "maxresources": {
                    "memory": f"{2048 - 256 * depth}Gi",
                    "vcore": str(1024 - 128 * depth),
                },
                "maxapplications": 2000 - 200 * depth,
            }
        )
        limits.append(
            {"limit": "any other group", "groups": ["*"], "maxapplications": 20000 - 2000 * depth}
        )
    return limits


def wide_config(fanout: tuple[int, ...], entries_per_queue: int) -> str:
    """A tree with the given fan-out per level and ``entries_per_queue`` limits on every queue.

    With fanout (10, 10, 10, 9) and 5 entries that is 10,111 queues and 50,555 entries.
    """
    counter = iter(range(10**9))

    def queue(name: str, depth: int) -> dict:
        n = next(counter)
        users = [f"user{(n * 7 + k) % 20000:05d}" for k in range(entries_per_queue - 3)]
        entries = [
            {
                "users": [user],
                "maxresources": {"memory": f"{256 - 32 * depth}Gi"},
                "maxapplications": 200 - 20 * depth,
            }
            for user in users
        ]
        entries.append(
            {
                "users": ["*"],
                "maxresources": {"memory": f"{256 - 32 * depth}Gi"},
                "maxapplications": 200 - 20 * depth,
            }
        )
        entries.append({"groups": [f"group{n % 500:03d}"], "maxapplications": 2000 - 200 * depth})
        entries.append({"groups": ["*"], "maxapplications": 2000 - 200 * depth})
        out: dict = {"name": name, "limits": entries}
        if depth < len(fanout):
            out["queues"] = [queue(f"{name}-{i}", depth + 1) for i in range(fanout[depth])]
        return out

    root = queue("root", 0)
    return yaml.safe_dump({"partitions": [{"name": "default", "queues": [root]}]}, sort_keys=False)


def engine_config(
    departments: int = 10,
    teams: int = 5,
    projects: int = 5,
    leaves: int = 4,
    named_users: list[str] | None = None,
    groups: list[str] | None = None,
) -> str:
    """Five-level paths (root.dept.team.project.leaf) with user caps on three levels and group
    caps on two: named users and the user wildcard at dept, team and project; groups at root and
    dept."""
    named_users = named_users or []
    groups = groups or []
    per_dept = max(1, len(named_users) // departments)

    def project(d: int, t: int, p: int) -> dict:
        names = named_users[d * per_dept : (d + 1) * per_dept][(t * projects + p) % 3 :: 3][:20]
        return {
            "name": f"p{p}",
            "limits": _limits(3, names or [f"lead-{d}-{t}-{p}"], []),
            "queues": [{"name": f"leaf{leaf}"} for leaf in range(leaves)],
        }

    def team(d: int, t: int) -> dict:
        names = named_users[d * per_dept : (d + 1) * per_dept][t::teams][:50]
        return {
            "name": f"t{t}",
            "limits": _limits(2, names or [f"lead-{d}-{t}"], []),
            "queues": [project(d, t, p) for p in range(projects)],
        }

    def dept(d: int) -> dict:
        names = named_users[d * per_dept : (d + 1) * per_dept]
        dept_groups = groups[d::departments]
        return {
            "name": f"d{d}",
            "limits": _limits(1, names or [f"head-{d}"], dept_groups),
            "queues": [team(d, t) for t in range(teams)],
        }

    root = {
        "name": "root",
        "limits": [
            {
                "limit": "every group",
                "groups": groups or ["all"],
                "maxresources": {"memory": "100Ti", "vcore": "100000"},
                "maxapplications": 100000,
            },
            {"limit": "any other group", "groups": ["*"], "maxapplications": 100000},
        ],
        "queues": [dept(d) for d in range(departments)],
    }
    return yaml.safe_dump({"partitions": [{"name": "default", "queues": [root]}]}, sort_keys=False)

"""Shared pieces of the allocation API tests: a small config with caps that are easy to hit,
the engines loaded from it, and a few readers."""

from __future__ import annotations

GiB = 2**30

CAPPED_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            resources:
              max: {memory: 100Gi, vcore: "100"}
            limits:
              - limit: alice
                users: [alice]
                maxresources: {memory: 10Gi}
                maxapplications: 2
              - limit: ml
                groups: [ml]
                maxresources: {memory: 16Gi}
"""

ALLOCATIONS = "/api/v1/partitions/default/allocations"


def engines_capped():
    """``CAPPED_YAML`` stored as version 1 and the engines started from it (with the ledger)."""
    from quotaweb.config.services import config_apply
    from quotaweb.core.services import engines_start

    config_apply(yaml_text=CAPPED_YAML, author=None, base_version=None)
    return engines_start()


def body(key: str, *, user: str = "alice", app: str = "app-1", memory: int = GiB,
         groups: list[str] | None = None, queue: str = "root.eng") -> dict:
    return {
        "allocationKey": key, "applicationId": app, "queuePath": queue, "user": user,
        "groups": ["ml"] if groups is None else groups, "resource": {"memory": memory},
    }


def used(user: str, path: str = "root.eng") -> dict:
    from quotaweb.engine.gateway import engines_get

    node = engines_get().user_usage("default", user)
    if node is None:
        return {}
    stack = [node["queues"]]
    while stack:
        current = stack.pop()
        if current["queuePath"] == path:
            return current.get("resourceUsage", {})
        stack.extend(current.get("children", ()))
    return {}


def ledger() -> dict[str, dict]:
    from quotaweb.allocations.models import Allocation

    return {row.key: row.resource for row in Allocation.objects.all()}

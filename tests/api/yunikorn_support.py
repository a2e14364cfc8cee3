"""Shared pieces of the tests of the ``/ws/v1/`` objects YuniKorn's web UI reads: a
configuration with a deeper tree, a child template and a node sorting policy, and readers."""

from __future__ import annotations

from tests.api.allocation_support import GiB

WS = "/ws/v1"

# The priority and preemption fields yunikorn-core sends on every queue, as a queue without
# properties of that kind has them (no pending requests: int32's minimum as current priority).
QUEUE_POLICIES = {
    "currentPriority": -(2**31), "prioritySorting": True, "preemptionEnabled": True,
    "isPreemptionFence": False, "preemptionDelay": "30s", "isPriorityFence": False,
}
# With YuniKorn's sorting policy: a parent sorts its children fairly, a leaf its applications
# first in, first out unless its properties say "fair".
PARENT_POLICIES = {**QUEUE_POLICIES, "sortingPolicy": "fair"}
LEAF_POLICIES = {**QUEUE_POLICIES, "sortingPolicy": "fifo"}

# root.org caps memory and vcore and gives its dynamic children a template; root.org.team is a
# parent without a max or template of its own (it inherits org's); root.org.team.leaf caps
# memory again; root.free has no max at all.
HIERARCHY_YAML = """\
partitions:
  - name: default
    nodesortpolicy:
      type: binpacking
      resourceweights: {memory: 1.5, vcore: 4}
    queues:
      - name: root
        queues:
          - name: org
            resources:
              max: {memory: 30Gi, vcore: "10"}
            childtemplate:
              maxapplications: 5
              properties: {application.sort.policy: fifo}
              resources:
                guaranteed: {memory: 1Gi}
                max: {memory: 8Gi}
            queues:
              - name: team
                parent: true
                queues:
                  - name: leaf
                    resources:
                      max: {memory: 10Gi}
              - name: open
          - name: free
  - name: gpu
    queues:
      - name: root
        queues:
          - name: training
"""

TEMPLATE_INFO = {
    "maxApplications": 5,
    "maxResource": {"memory": 8 * GiB},
    "guaranteedResource": {"memory": GiB},
    "properties": {"application.sort.policy": "fifo"},
}


def nodes_by_path(tree: dict) -> dict[str, dict]:
    """Every node of a ``/queues`` answer by its ``queuename``."""
    found: dict[str, dict] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        found[node["queuename"]] = node
        stack.extend(node.get("children", ()))
    return found

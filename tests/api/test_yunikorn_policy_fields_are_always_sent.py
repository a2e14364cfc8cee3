"""The fields yunikorn-core always sends (no ``omitempty``), with its JSON types: a partition's
``preemptionEnabled`` and ``quotaPreemptionEnabled`` (from its ``preemption`` section, YuniKorn's
defaults on and off), and each queue's ``currentPriority``, ``prioritySorting``,
``preemptionEnabled``, ``isPreemptionFence`` and ``isPriorityFence`` (from its properties, as
YuniKorn reads them), with ``preemptionDelay`` and ``priorityOffset``."""

from __future__ import annotations

import pytest

from tests.api.allocation_support import ALLOCATIONS, body
from tests.api.yunikorn_support import nodes_by_path
from tests.configs import store_and_load

pytestmark = pytest.mark.django_db

POLICY_YAML = """\
partitions:
  - name: default
    preemption:
      enabled: false
      quotapreemptionenabled: true
    queues:
      - name: root
        queues:
          - name: fenced
            properties:
              preemption.policy: fence
              priority.policy: fence
              priority.offset: "-5"
              preemption.delay: 1m
          - name: unsorted
            properties:
              application.sort.priority: disabled
              preemption.policy: disabled
  - name: other
    queues:
      - name: root
"""

ALWAYS = {"currentPriority": int, "prioritySorting": bool, "preemptionEnabled": bool,
          "isPreemptionFence": bool, "isPriorityFence": bool}


def test_partitions_say_what_their_preemption_section_says(admin_api, viewer_token, db):
    store_and_load(POLICY_YAML)
    admin_api.post(ALLOCATIONS, body("k1", queue="root.fenced"), format="json")

    default, other = viewer_token.get("/ws/v1/partitions").json()

    assert (default["preemptionEnabled"], default["quotaPreemptionEnabled"]) == (False, True)
    # Nothing configured: YuniKorn's defaults.
    assert (other["preemptionEnabled"], other["quotaPreemptionEnabled"]) == (True, False)


def test_every_queue_carries_the_policy_fields(admin_api, viewer_token, db):
    store_and_load(POLICY_YAML)
    response = admin_api.post(ALLOCATIONS, body("k1", queue="root.fenced"), format="json")
    assert response.status_code == 201, response.json()

    queues = nodes_by_path(viewer_token.get("/ws/v1/partition/default/queues").json())

    for queue in queues.values():
        for field, kind in ALWAYS.items():
            assert type(queue[field]) is kind, (queue["queuename"], field)
        # No pending requests in quotaweb: the lowest priority, as YuniKorn starts a queue.
        assert queue["currentPriority"] == -(2**31)
    fenced, unsorted, root = queues["root.fenced"], queues["root.unsorted"], queues["root"]
    assert (fenced["isPreemptionFence"], fenced["isPriorityFence"]) == (True, True)
    assert fenced["preemptionEnabled"] is True
    assert fenced["priorityOffset"] == -5
    # Written as Go writes a duration (its own test: test_preemption_delay_is_a_go_duration).
    assert fenced["preemptionDelay"] == "1m0s"
    assert (unsorted["prioritySorting"], unsorted["preemptionEnabled"]) == (False, False)
    assert root["prioritySorting"] is True
    assert root["preemptionDelay"] == "30s"
    assert "priorityOffset" not in root

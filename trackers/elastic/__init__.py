"""Elastic quota: each queue's runtime quota when queues lend unused guaranteed quota to busy
siblings (Koordinator's multi-hierarchy elastic quota; spec ``elastic-quota.md``).

Pure Python and integer arithmetic throughout. ``elastic_queues`` reads a partition's queues,
``ElasticTree`` computes and keeps the runtimes current, ``check_elastic`` validates a config,
``revocation_picks`` names what over-use revocation would take back.
"""

from trackers.elastic.checks import check_elastic
from trackers.elastic.queues import (
    PROP_ALLOW_LENT,
    PROP_SYSTEM,
    PROP_WEIGHT,
    ElasticQueue,
    elastic_queues,
    parse_weight,
)
from trackers.elastic.revocation import Candidate, revocation_picks
from trackers.elastic.tree import ElasticTree, QueueState

__all__ = [
    "PROP_ALLOW_LENT",
    "PROP_SYSTEM",
    "PROP_WEIGHT",
    "Candidate",
    "ElasticQueue",
    "ElasticTree",
    "QueueState",
    "check_elastic",
    "elastic_queues",
    "parse_weight",
    "revocation_picks",
]

"""What the ElasticQuota tests share: a real-looking ``kubectl get elasticquota -A -o yaml``
output, one object made from parts, and the queues of a partition as values to compare."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from quotaweb.config.selectors import active_version, version_model
from trackers.elastic.queues import PROP_WEIGHT, WeightError, parse_weight
from trackers.resources import parse_resource_map

KUBECTL_OUTPUT = (Path(__file__).with_name("kubectl_elasticquota.yaml")).read_text(encoding="utf-8")
GiB = 2**30


def quota(name: str, *, namespace: str = "team", parent: str | None = None,
          is_parent: bool = False, spec: dict | None = None, **metadata: Any) -> dict:
    """One ElasticQuota object as kubectl prints it (labels and annotations as text)."""
    labels = dict(metadata.pop("labels", {}))
    if parent is not None:
        labels["quota.scheduling.koordinator.sh/parent-quota-name"] = parent
    if is_parent:
        labels["quota.scheduling.koordinator.sh/is-parent"] = "true"
    return {
        "apiVersion": "scheduling.sigs.k8s.io/v1alpha1", "kind": "ElasticQuota",
        "metadata": {"name": name, "namespace": namespace, "labels": labels, **metadata},
        "spec": spec if spec is not None else {"max": {"cpu": "4"}, "min": {"cpu": "1"}},
    }


def listing(*objects: dict) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": list(objects)})


def _weight(text: str | None) -> dict[str, int] | str | None:
    """A weight as numbers, or as written when it cannot be read."""
    try:
        return parse_weight(text) if text is not None else None
    except WeightError:
        return text


def active_queues(partition: str = "default") -> dict[str, dict[str, Any]]:
    """queue path -> what the queue holds, read as numbers (spellings aside)."""
    found = version_model(active_version()).partition(partition)
    assert found is not None
    out = {}
    for queue in found.queues():
        properties = dict(queue.properties)
        weight = properties.pop(PROP_WEIGHT, None)
        out[queue.path] = {
            "guaranteed": parse_resource_map(queue.guaranteed),
            "max": parse_resource_map(queue.max),
            "weight": _weight(weight),
            "properties": properties,
            "children": [child.path for child in queue.children],
            "leaf": not queue.children and not queue.parent,
            "limits": queue.limits,
            "max_applications": queue.max_applications,
            "acl": (queue.admin_acl, queue.submit_acl),
        }
    return out

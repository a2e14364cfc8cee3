"""The ElasticQuota export: every queue below the root as an object ``kubectl apply`` accepts
(DNS-1123 names unique in the partition, qualified label and annotation keys, text values),
with the current runtime and used figures; importing the export gives back the same queues."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from django.urls import reverse

from quotaweb.config.elasticquota import (
    ANNOTATION_QUEUE_NAME,
    ANNOTATION_RUNTIME,
    ANNOTATION_WEIGHT,
    LABEL_ALLOW_LENT,
    LABEL_IS_PARENT,
    LABEL_PARENT,
    LABEL_PARENT_CODE,
    elasticquota_export,
)
from quotaweb.config.kube import is_dns_label, is_dns_subdomain
from tests.api.allocation_support import allocate
from tests.config.elasticquota_support import active_queues
from tests.config.pages import apply
from tests.configs import SMALL_YAML, store_and_load

pytestmark = pytest.mark.django_db

# Names Kubernetes would refuse (upper case, "_", "@"), one name under two parents, every
# setting an ElasticQuota has no field for, a childless parent, and a weight and a namespace
# Koordinator could not read (kept as written).
RICH_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: ML_Team
            submitacl: "alice,bob ml"
            adminacl: " admins"
            maxapplications: 40
            resources:
              guaranteed: {vcore: 8, memory: 32Gi}
              max: {vcore: 32, memory: 128Gi, nvidia.com/gpu: 4}
            properties:
              elastic.shared-weight: vcore=2,memory=8Gi
              elastic.namespaces: ml-dev,ml-prod
              elastic.namespace: ml
              application.sort.policy: fifo
            childtemplate:
              maxapplications: 5
              resources:
                max: {vcore: 2}
            queues:
              - name: dev
                maxapplications: 10
                resources:
                  guaranteed: {vcore: 500m}
                  max: {vcore: 4, memory: 8Gi}
                limits:
                  - limit: per user
                    users: ["*"]
                    maxresources: {vcore: 2}
                    maxapplications: 3
              - name: later
                parent: true
                maxapplications: 5
          - name: web@edge
            resources:
              guaranteed: {vcore: 2}
              max: {vcore: 8}
            properties:
              elastic.allow-lent: "false"
              elastic.system: "true"
            queues:
              - name: dev
                resources:
                  max: {vcore: 1}
                properties:
                  elastic.shared-weight: lots
                  elastic.namespace: Not_A_Namespace
"""

_KEY = re.compile(r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                  r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def _items(text: str) -> list[dict]:
    document = yaml.safe_load(text)
    assert document["apiVersion"] == "v1"
    assert document["kind"] == "List"
    return document["items"]


def _kubectl_accepts(item: dict) -> None:
    """What ``kubectl apply --dry-run=client`` checks of an object's shape."""
    assert item["apiVersion"] == "scheduling.sigs.k8s.io/v1alpha1"
    assert item["kind"] == "ElasticQuota"
    metadata = item["metadata"]
    assert is_dns_subdomain(metadata["name"])
    assert is_dns_label(metadata["name"])
    assert is_dns_label(metadata["namespace"])
    for key, value in metadata["labels"].items():
        assert _KEY.fullmatch(key)
        assert isinstance(value, str)
        assert len(value) <= 63
        assert _LABEL_VALUE.fullmatch(value), (key, value)
    for key, value in metadata.get("annotations", {}).items():
        assert _KEY.fullmatch(key)
        assert isinstance(value, str)
    for side in ("min", "max"):
        assert all(isinstance(value, str) for value in item["spec"][side].values())


def test_every_object_is_one_kubectl_accepts(db):
    store_and_load(RICH_YAML)

    items = _items(elasticquota_export(partition="default"))

    for item in items:
        _kubectl_accepts(item)
    names = [item["metadata"]["name"] for item in items]
    assert len(set(names)) == len(names) == 5
    assert names[0] == "ml-team"
    # "dev" twice in the partition: both get a name of their own, and keep "dev" as the queue's.
    devs = [item for item in items if item["metadata"]["name"].startswith("dev-")]
    assert len(devs) == 2
    assert {item["metadata"]["annotations"][ANNOTATION_QUEUE_NAME] for item in devs} == {"dev"}


def test_labels_and_annotations_say_what_koordinator_reads(db):
    store_and_load(RICH_YAML)

    items = {item["metadata"]["name"]: item for item in _items(
        elasticquota_export(partition="default")
    )}

    team = items["ml-team"]
    assert team["metadata"]["namespace"] == "ml"
    assert team["metadata"]["labels"] == {LABEL_IS_PARENT: "true", LABEL_ALLOW_LENT: "true"}
    assert json.loads(team["metadata"]["annotations"][ANNOTATION_WEIGHT]) == {
        "cpu": "2", "memory": "8Gi",
    }
    assert team["spec"] == {
        "min": {"cpu": "8", "memory": "32Gi"},
        "max": {"cpu": "32", "memory": "128Gi", "nvidia.com/gpu": "4"},
    }
    web = items["web-edge"]
    assert web["metadata"]["labels"][LABEL_ALLOW_LENT] == "false"
    assert web["metadata"]["namespace"] == "default"
    child = next(item for item in items.values()
                 if item["metadata"]["labels"].get(LABEL_PARENT) == "web-edge")
    assert child["metadata"]["labels"][LABEL_PARENT_CODE] == "web-edge"
    assert child["metadata"]["labels"][LABEL_IS_PARENT] == "false"


def test_runtime_and_used_are_the_current_figures(db):
    gateway = store_and_load(RICH_YAML)
    allocate(gateway, queue="root.ML_Team.dev", app="app-1", user="alice", vcore=1500)

    items = {item["metadata"]["name"]: item for item in _items(
        elasticquota_export(partition="default")
    )}

    team = items["ml-team"]
    assert team["status"]["used"]["cpu"] == "1500m"
    runtime = json.loads(team["metadata"]["annotations"][ANNOTATION_RUNTIME])
    assert set(runtime) <= {"cpu", "memory", "nvidia.com/gpu"}


def test_importing_the_export_gives_the_same_queues(admin_token, db):
    store_and_load(RICH_YAML)
    before = active_queues()
    exported = elasticquota_export(partition="default")
    # Start from something else, so the import has everything to put back.
    apply(SMALL_YAML)
    assert active_queues() != before

    response = admin_token.post(
        "/api/v1/partitions/default/import/elasticquota", exported,
        content_type="application/yaml",
    )

    assert response.status_code == 200, response.json()
    assert active_queues() == before


def test_the_page_downloads_a_partition_as_elasticquota_objects(viewer_client, db):
    store_and_load(RICH_YAML)
    page = viewer_client.get(reverse("config:yaml")).content.decode()
    url = reverse("config:export-elasticquota", args=["default"])
    assert f'href="{url}" download data-download="elasticquota"' in page

    response = viewer_client.get(url)

    assert response["Content-Disposition"] == 'attachment; filename="elasticquota-default.yaml"'
    assert response.content.decode() == elasticquota_export(partition="default")
    missing = viewer_client.get(reverse("config:export-elasticquota", args=["nope"]))
    assert missing.status_code == 404

"""ElasticQuota objects as ``kubectl get elasticquota -A -o yaml`` prints them (status,
managedFields, a built-in root quota, a parent chain three deep, quantities in every Kubernetes
spelling) become the queues below a partition's root, read exactly; on the configuration page
they are staged in the admin's draft, which then applies as one version."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from quotaweb.config import format_views
from quotaweb.config.elasticquota import NOTE_BUILT_IN, elasticquota_read
from quotaweb.config.models import ConfigVersion, Draft
from quotaweb.config.services import draft_apply
from tests.config.elasticquota_support import KUBECTL_OUTPUT, GiB, active_queues

pytestmark = pytest.mark.django_db

IMPORT = reverse("config:import-elasticquota")
GPU = "nvidia.com/gpu"


def _imported(admin) -> dict:
    draft_apply(author=admin)
    return active_queues()


def test_the_tree_follows_the_parent_labels(quota_admin_client, admin, active_small):
    quota_admin_client.post(IMPORT, {"eq-partition": "default", "eq-text": KUBECTL_OUTPUT})
    queues = _imported(admin)

    assert queues["root"]["children"] == ["root.research"]
    assert queues["root.research"]["children"] == ["root.research.ml", "root.research.web"]
    assert queues["root.research.ml"]["children"] == [
        "root.research.ml.ml-train", "root.research.ml.ml-eval",
    ]
    # The active version's own queue is replaced: the import is the whole tree below root.
    assert "root.eng" not in queues


def test_every_quantity_spelling_is_read_exactly(quota_admin_client, admin, active_small):
    quota_admin_client.post(IMPORT, {"eq-partition": "default", "eq-text": KUBECTL_OUTPUT})
    queues = _imported(admin)

    research = queues["root.research"]
    assert research["guaranteed"] == {"vcore": 32_000, "memory": 128 * GiB, GPU: 4}
    ml = queues["root.research.ml"]
    # cpu: 4e1 (an exponent), 16000m, memory 65536Mi, a gpu count YAML read as a number.
    assert ml["max"] == {"vcore": 40_000, "memory": 160 * GiB, GPU: 8}
    assert ml["guaranteed"] == {"vcore": 16_000, "memory": 64 * GiB, GPU: 2}
    train = queues["root.research.ml.ml-train"]
    # 1.6e1 cores, 500G (decimal), 2k pods; 10500m, 100000M, 50331648Ki.
    assert train["max"] == {
        "vcore": 16_000, "ephemeral-storage": 500 * 10**9, "memory": 64 * GiB, GPU: 4,
        "pods": 2000,
    }
    assert train["guaranteed"] == {
        "vcore": 10_500, "ephemeral-storage": 100_000 * 10**6, "memory": 48 * GiB, GPU: 1,
        "pods": 100,
    }
    # cpu: 0.5 (a YAML float) is 500 millicores; memory 1G is 10^9 bytes.
    assert queues["root.research.ml.ml-eval"]["guaranteed"] == {"vcore": 500, "memory": 10**9}


def test_elastic_settings_and_namespaces_become_properties(
    quota_admin_client, admin, active_small
):
    quota_admin_client.post(IMPORT, {"eq-partition": "default", "eq-text": KUBECTL_OUTPUT})
    queues = _imported(admin)

    ml = queues["root.research.ml"]
    assert ml["weight"] == {"vcore": 2000, "memory": 1}
    assert ml["properties"] == {
        "elastic.namespace": "research", "elastic.namespaces": "ml-dev,ml-prod",
    }
    train = queues["root.research.ml.ml-train"]
    assert train["properties"] == {"elastic.namespace": "ml-prod", "elastic.allow-lent": "false"}
    # No shared-weight annotation: none written, so the weight defaults to max.
    assert queues["root.research.ml.ml-eval"]["weight"] is None
    # The "default" namespace is the export's default: nothing to keep.
    assert queues["root.research.web"]["properties"] == {}


def test_status_runtime_and_bookkeeping_are_not_read():
    imported = elasticquota_read(partition="default", text=KUBECTL_OUTPUT)

    text = repr(imported.queues)
    for output in ("status", "used", "runtime", "managedFields", "resourceVersion", "uid"):
        assert output not in text
    assert imported.groups == 5
    assert imported.notes == (NOTE_BUILT_IN.format(names="koordinator-root-quota"),)


def test_the_page_stages_the_import_and_applies_nothing(quota_admin_client, admin, active_small):
    response = quota_admin_client.post(
        IMPORT, {"eq-partition": "default", "eq-text": KUBECTL_OUTPUT}, follow=True
    )

    assert response.redirect_chain[-1][0] == reverse("config:draft")
    html = response.content.decode()
    assert format_views.IMPORT_STAGED.format(count=5, plural="s", partition="default") in html
    assert "koordinator-root-quota" in html
    assert ConfigVersion.objects.count() == 1
    (draft,) = Draft.objects.filter(author=admin)
    assert [record["kind"] for record in draft.edits] == ["queues_replace"]


def test_an_uploaded_file_imports_into_a_new_partition(quota_admin_client, admin, active_small):
    upload = SimpleUploadedFile("quotas.yaml", KUBECTL_OUTPUT.encode(), "application/yaml")

    quota_admin_client.post(IMPORT, {"eq-partition": "gpu", "eq-upload": upload})
    draft_apply(author=admin)

    assert active_queues("gpu")["root"]["children"] == ["root.research"]
    assert active_queues("default")["root"]["children"] == ["root.eng"]


def test_a_viewer_cannot_import(viewer_client, active_small):
    response = viewer_client.post(IMPORT, {"eq-partition": "default", "eq-text": KUBECTL_OUTPUT})

    assert response.status_code == 403
    assert not Draft.objects.exists()

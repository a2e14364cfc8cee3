"""``POST /api/v1/partitions/{p}/import/elasticquota`` and ``GET .../export/elasticquota``:
admins import (viewers are refused, 403), ``dry_run`` answers the changes and stores nothing,
problems are a 400 naming each object and field, and anyone signed in exports."""

from __future__ import annotations

import pytest
import yaml

from quotaweb.api.permissions import ERR_WRITE_NEEDS_ADMIN
from quotaweb.config.elasticquota import ERR_NO_PARENT
from quotaweb.config.models import ConfigVersion
from quotaweb.config.selectors import active_version_number
from tests.config.elasticquota_support import KUBECTL_OUTPUT, active_queues, listing, quota

pytestmark = pytest.mark.django_db

IMPORT = "/api/v1/partitions/default/import/elasticquota"
EXPORT = "/api/v1/partitions/default/export/elasticquota"


def _post(client, text, query=""):
    return client.post(IMPORT + query, text, content_type="application/yaml")


def test_an_admin_imports_the_objects_as_a_new_version(admin_token, active_small):
    response = _post(admin_token, KUBECTL_OUTPUT, "?comment=from+koordinator")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["version"] == 2
    assert body["comment"] == "from koordinator"
    assert body["groups"] == 5
    assert any("koordinator-root-quota" in note for note in body["notes"])
    queues = active_queues()
    assert queues["root"]["children"] == ["root.research"]
    assert queues["root.research.ml"]["children"] == [
        "root.research.ml.ml-train", "root.research.ml.ml-eval"
    ]


def test_a_viewer_cannot_import(viewer, viewer_token, active_small):
    response = _post(viewer_token, KUBECTL_OUTPUT)

    assert response.status_code == 403
    assert response.json()["message"] == ERR_WRITE_NEEDS_ADMIN.format(
        username=viewer.get_username(), method="POST"
    )
    assert active_version_number() == 1


def test_a_dry_run_answers_the_changes_and_stores_nothing(admin_token, active_small):
    before = active_queues()

    response = _post(admin_token, KUBECTL_OUTPUT, "?dry_run=1")

    assert response.status_code == 200
    body = response.json()
    assert body["dry_run"] is True
    assert body["valid"] is True
    assert body["groups"] == 5
    assert body["changes"]
    assert ConfigVersion.objects.count() == 1
    assert active_queues() == before


def test_problems_are_a_400_naming_object_and_field(admin_token, active_small):
    text = listing(quota("orphan", parent="nowhere"))

    response = _post(admin_token, text)

    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid"
    (detail,) = body["details"]
    assert detail["object"] == "team/orphan"
    assert detail["field"] == (
        "items[0].metadata.labels[quota.scheduling.koordinator.sh/parent-quota-name]"
    )
    assert ERR_NO_PARENT.format(parent="nowhere") in detail["message"]
    assert "team/orphan" in detail["message"]
    assert active_version_number() == 1


def test_a_json_body_with_a_base_version_imports_too(admin_api, active_small):
    response = admin_api.post(
        IMPORT, {"yaml": listing(quota("solo")), "base_version": 1}, format="json"
    )

    assert response.status_code == 200, response.json()
    assert active_queues()["root"]["children"] == ["root.solo"]


def test_a_viewer_exports_the_queues_as_elasticquota_objects(viewer_token, active_small):
    response = viewer_token.get(EXPORT)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/yaml")
    document = yaml.safe_load(response.content)
    assert document["kind"] == "List"
    assert [item["metadata"]["name"] for item in document["items"]] == ["eng"]
    assert document["items"][0]["spec"]["max"] == {"cpu": "100", "memory": "100Gi"}


def test_an_unknown_partition_exports_as_a_404(viewer_token, active_small):
    response = viewer_token.get("/api/v1/partitions/nope/export/elasticquota")

    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


def test_the_schema_lists_both_operations(client):
    schema = yaml.safe_load(client.get("/api/schema/").content)
    paths = schema["paths"]
    assert "post" in paths["/api/v1/partitions/{partition}/import/elasticquota"]
    assert "get" in paths["/api/v1/partitions/{partition}/export/elasticquota"]

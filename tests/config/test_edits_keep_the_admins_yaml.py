"""Edits through the forms and the API change only what they change in the admin's own YAML:
comments, key order, flow style and quoting survive, and a one-value edit is a one-line diff."""

from __future__ import annotations

import difflib
import json

import pytest
from django.urls import reverse

from quotaweb.config import roundtrip
from quotaweb.config.selectors import active_version
from quotaweb.config.services import config_apply, limit_update, queue_create
from tests.configs import SAMPLE_CONFIG

pytestmark = pytest.mark.django_db

SAMPLE = SAMPLE_CONFIG.read_text(encoding="utf-8")
RESEARCH = "/api/v1/partitions/default/queues/root.research"


def _changed_lines(before: str, after: str) -> list[str]:
    return [
        line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="")
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


@pytest.fixture
def sample_active(db):
    return config_apply(yaml_text=SAMPLE, author=None, base_version=None)


def test_a_limit_edit_through_the_service_is_a_one_line_diff(sample_active):
    limit_update(
        partition="default", queue_path="root.research", index=1,
        values={"max_applications": 12}, author=None, base_version=sample_active.number,
    )

    written = active_version().yaml
    assert _changed_lines(SAMPLE, written) == [
        "-                maxapplications: 10", "+                maxapplications: 12",
    ]
    assert written.startswith("# quotaweb sample configuration")


def test_a_queue_form_edit_applied_from_the_draft_is_a_one_line_diff(
    quota_admin_client, sample_active
):
    url = reverse("config:queue", args=["default", "root.research"])
    quota_admin_client.post(url, {
        "action": "queue-save", "queue-name": "research",
        "queue-guaranteed": "memory: 1Ti, vcore: 256",
        "queue-max": "memory: 2Ti, vcore: 512, nvidia.com/gpu: 40",
        "queue-max_applications": "200", "queue-properties": "", "queue-submit_acl": "",
        "queue-admin_acl": "", "queue-kind": "",
    })
    quota_admin_client.post(reverse("config:draft"), {"action": "apply", "comment": "more gpus"})

    assert _changed_lines(SAMPLE, active_version().yaml) == [
        "-              max: {memory: 2Ti, vcore: 512, nvidia.com/gpu: 32}",
        "+              max: {memory: 2Ti, vcore: 512, nvidia.com/gpu: 40}",
    ]


def test_an_api_patch_keeps_comments_quoting_and_flow_style(admin_token, sample_active):
    response = admin_token.patch(
        f"{RESEARCH}/", json.dumps({"max_applications": 150}), content_type="application/json"
    )

    assert response.status_code == 200, response.content
    written = active_version().yaml
    assert _changed_lines(SAMPLE, written) == [
        "-            maxapplications: 200", "+            maxapplications: 150",
    ]
    assert '        submitacl: "*"' in written
    assert "#  - a user limit applies to each listed user separately" in written


def test_a_new_queue_is_written_like_its_siblings(sample_active):
    queue_create(
        partition="default", parent_path="root.research",
        values={"name": "speech", "max": {"memory": "64Gi", "vcore": "16"},
                "max_applications": 5},
        author=None, base_version=sample_active.number,
    )

    changed = _changed_lines(SAMPLE, active_version().yaml)
    assert all(line.startswith("+") for line in changed)
    assert "+                  max: {memory: 64Gi, vcore: 16}" in changed
    assert "+              - name: speech" in changed


IMPLICIT_ROOT = (
    "partitions:\n  - name: default\n    queues:\n"
    "      - name: eng  # the engineers\n        maxapplications: 4\n"
)


@pytest.mark.parametrize(("text", "limit"), [
    pytest.param(IMPLICIT_ROOT, roundtrip.MAX_ROUNDTRIP_BYTES, id="implicit root"),
    pytest.param(SAMPLE, 1024, id="above the round-trip size"),
    pytest.param(SAMPLE.replace(
        "maxresources: {memory: 256Gi, vcore: 64}\n            maxapplications: 20",
        "maxresources: &everyone {memory: 256Gi, vcore: 64}\n            maxapplications: 20",
    ).replace(
        "maxresources: {memory: 256Gi, vcore: 64}\n                maxapplications: 20",
        "maxresources: *everyone\n                maxapplications: 20",
    ), roundtrip.MAX_ROUNDTRIP_BYTES, id="anchors"),
])
def test_a_document_edits_cannot_address_as_written_is_edited_from_its_model(
    db, monkeypatch, text, limit
):
    monkeypatch.setattr(roundtrip, "MAX_ROUNDTRIP_BYTES", limit)
    version = config_apply(yaml_text=text, author=None, base_version=None)

    queue_create(
        partition="default", parent_path="root", values={"name": "newcomers"}, author=None,
        base_version=version.number,
    )

    written = active_version().yaml
    assert "name: newcomers" in written
    assert "#" not in written

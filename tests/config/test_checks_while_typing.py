"""``check=1`` on a queue page form: the verdict on the whole hierarchy as JSON, nothing staged
(the page's script asks while the admin types)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.config.models import Draft

pytestmark = pytest.mark.django_db

ML = reverse("config:queue", args=["default", "root.eng.ml"])


def _new_limit(**values) -> dict[str, str]:
    data = {"action": "limit-add", "check": "1", "new-limit-position": "1",
            "new-limit-users": "bob", "new-limit-max_applications": "1"}
    data.update({f"new-limit-{key}": value for key, value in values.items()})
    return data


def test_a_valid_entry_is_ok_and_not_staged(quota_admin_client, capped_tree):
    response = quota_admin_client.post(ML, _new_limit(max_resources="memory: 1G"))
    assert response.status_code == 200
    assert response.json() == {"ok": True, "fields": {}, "form": [], "problems": []}
    assert not Draft.objects.exists()


def test_an_entry_above_the_queue_max_names_the_field(quota_admin_client, capped_tree):
    verdict = quota_admin_client.post(ML, _new_limit(max_resources="vcore: 30")).json()
    assert verdict["ok"] is False
    assert verdict["fields"] == {"max_resources": [
        "max resources of limit #2 (30 vcore) go above this queue's max (20 vcore) (rule L12)"
    ]}
    assert not Draft.objects.exists()


def test_a_form_error_comes_back_on_its_field(quota_admin_client, capped_tree):
    verdict = quota_admin_client.post(ML, _new_limit(max_resources="lots")).json()
    assert verdict["ok"] is False
    assert list(verdict["fields"]) == ["max_resources"]


def test_an_unchanged_queue_form_is_ok(quota_admin_client, capped_tree):
    verdict = quota_admin_client.post(ML, {
        "action": "queue-save", "check": "1", "queue-name": "ml",
        "queue-guaranteed": "memory: 10G", "queue-max": "vcore: 20, nvidia.com/gpu: 4",
        "queue-max_applications": "5",
    }).json()
    assert verdict["ok"] is True


def test_viewers_cannot_check_either(viewer_client, capped_tree):
    assert viewer_client.post(ML, _new_limit()).status_code == 403

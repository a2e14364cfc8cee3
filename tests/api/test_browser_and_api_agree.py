"""The same bad change gets the same errors from the browser and from the API: both hand it to
the same edits and the same validator, so the API's ``details`` are exactly the errors the
browser puts on its fields (in the browser's words: the plain-words detail and the rule)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from quotaweb.config.models import ConfigVersion, Draft
from quotaweb.config.selectors import error_text
from tests.configs import CAPPED_TREE_YAML

pytestmark = pytest.mark.django_db

ML_PAGE = reverse("config:queue", args=["default", "root.eng.ml"])
ML_API = "/api/v1/partitions/default/queues/root.eng.ml"


def _browser_texts(verdict: dict) -> list[str]:
    """Every error text of a queue page's ``check=1`` verdict, wherever the page puts it."""
    texts = [text for field in verdict["fields"].values() for text in field]
    return texts + verdict["form"] + [problem["text"] for problem in verdict["problems"]]


def _api_texts(response) -> list[str]:
    assert response.status_code == 400
    return [error_text(error) for error in response.json()["details"]]


@pytest.mark.parametrize(("users", "max_resources"), [
    (["bob"], {"vcore": "30"}),                      # above the queue's max (L12)
    (["bob", "1bad"], {"vcore": "30"}),              # and a name no user can have (L2)
    (["bob"], {"memory": "lots"}),                   # not a quantity (QTY)
])
def test_a_bad_limit_entry(quota_admin_client, capped_tree, users, max_resources):
    verdict = quota_admin_client.post(ML_PAGE, {
        "action": "limit-add", "check": "1", "new-limit-position": "1",
        "new-limit-users": ", ".join(users), "new-limit-max_applications": "1",
        "new-limit-max_resources": ", ".join(f"{k}: {v}" for k, v in max_resources.items()),
    }).json()
    response = quota_admin_client.post(f"{ML_API}/limits/", json.dumps({
        "users": users, "max_resources": max_resources, "max_applications": 1, "position": 1,
    }), content_type="application/json")

    assert verdict["ok"] is False
    assert sorted(_api_texts(response)) == sorted(_browser_texts(verdict))
    assert ConfigVersion.objects.count() == 1
    assert not Draft.objects.exists()


def test_a_bad_queue_change(quota_admin_client, capped_tree):
    verdict = quota_admin_client.post(ML_PAGE, {
        "action": "queue-save", "check": "1", "queue-name": "ml",
        "queue-guaranteed": "memory: 10G", "queue-max": "vcore: 60, nvidia.com/gpu: 4",
        "queue-max_applications": "50",
    }).json()
    response = quota_admin_client.patch(f"{ML_API}/", json.dumps({
        "max": {"vcore": "60", "nvidia.com/gpu": "4"}, "max_applications": 50,
    }), content_type="application/json")

    assert verdict["ok"] is False
    assert len(verdict["fields"]) == 2
    assert sorted(_api_texts(response)) == sorted(_browser_texts(verdict))


def test_a_bad_yaml_document(quota_admin_client, capped_tree):
    bad = CAPPED_TREE_YAML.replace("maxapplications: 3", "maxapplications: 30").replace(
        "users: [alice]", "users: [\"1alice\"]"
    )
    page = quota_admin_client.post(reverse("config:yaml"), {"text": bad, "action": "preview"})
    response = quota_admin_client.put("/api/v1/config", bad, content_type="application/yaml")

    assert page.status_code == 400
    shown = [
        {key: error[key] for key in ("code", "path", "field", "message", "detail") if key in error}
        for error in page.context["errors"]
    ]
    assert len(shown) >= 2
    assert response.status_code == 400
    assert sorted(response.json()["details"], key=json.dumps) == sorted(shown, key=json.dumps)
    assert ConfigVersion.objects.count() == 1

"""A draft may pass through invalid states: tightening a parent before its child is staged, the
draft shows the problem on the child's field and on the draft page, Apply waits until the draft
is valid (and is refused if forced), and once the child is tightened too the draft applies."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.config import views
from quotaweb.config.models import ConfigVersion, Draft
from quotaweb.config.selectors import active_version, version_model

pytestmark = pytest.mark.django_db

DRAFT = reverse("config:draft")
ENG = reverse("config:queue", args=["default", "root.eng"])
ML = reverse("config:queue", args=["default", "root.eng.ml"])
CHILD_ABOVE = "max (20 vcore) is above the tightest max of the queues above (10 vcore) (rule R2)"


def _queue_save(name: str, *, guaranteed: str, max: str, max_applications: str) -> dict:
    return {
        "action": "queue-save", "queue-name": name, "queue-guaranteed": guaranteed,
        "queue-max": max, "queue-max_applications": max_applications, "queue-properties": "",
        "queue-submit_acl": "", "queue-admin_acl": "", "queue-kind": "",
    }


def test_tightening_the_parent_first_then_the_child_applies(
    quota_admin_client, admin, capped_tree
):
    parent_first = quota_admin_client.post(ENG, _queue_save(
        "eng", guaranteed="", max="memory: 100G, vcore: 10", max_applications="10",
    ), follow=True)
    assert views.DRAFT_HAS_PROBLEMS.format(count=1, plural="") in parent_first.content.decode()
    assert len(Draft.objects.get(author=admin).edits) == 1

    child_page = quota_admin_client.get(ML).content.decode()
    assert 'data-error-for="max"' in child_page
    assert CHILD_ABOVE in child_page

    draft_page = quota_admin_client.get(DRAFT).content.decode()
    assert "data-draft-problems" in draft_page
    assert f'<a href="{ML}"><code>root.eng.ml</code></a>: {CHILD_ABOVE}' in draft_page
    assert 'value="apply"' not in draft_page
    assert "data-apply-unavailable" in draft_page
    # Not "nobody is above a new limit": that is not known until the draft is valid.
    assert "data-impact-later" in draft_page
    assert "data-impact-none" not in draft_page

    forced = quota_admin_client.post(DRAFT, {"action": "apply", "comment": "too early"})
    assert forced.status_code == 400
    assert ConfigVersion.objects.count() == 1

    quota_admin_client.post(ML, _queue_save(
        "ml", guaranteed="memory: 10G", max="vcore: 8, nvidia.com/gpu: 4", max_applications="5",
    ))
    draft_page = quota_admin_client.get(DRAFT).content.decode()
    assert "data-draft-problems" not in draft_page
    assert 'value="apply"' in draft_page
    assert "data-impact-later" not in draft_page

    applied = quota_admin_client.post(DRAFT, {"action": "apply", "comment": "tighter eng"})
    assert applied.status_code == 302
    model = version_model(active_version())
    eng = model.partitions[0].root.children[0]
    assert (eng.max["vcore"], eng.children[0].max["vcore"]) == ("10", "8")
    assert ConfigVersion.objects.count() == 2
    assert not Draft.objects.filter(author=admin).exists()


def test_an_edit_no_document_can_express_is_still_refused(quota_admin_client, admin, capped_tree):
    response = quota_admin_client.post(
        reverse("config:queue", args=["default", "root"]), {"action": "queue-delete"}
    )
    assert response.status_code == 400
    assert not Draft.objects.filter(author=admin).exists()

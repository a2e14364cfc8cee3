"""The draft page: staged edits reviewed as a diff with their impact, applied as ONE version with
a comment, or unstaged, rebased, discarded."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.config import views
from quotaweb.config.models import ConfigVersion, Draft
from quotaweb.engine.gateway import engines_get
from tests.config_rows import config_from_rows

pytestmark = pytest.mark.django_db

DRAFT = reverse("config:draft")
ENG = reverse("config:queue", args=["default", "root.eng"])


def _stage_three(client) -> None:
    client.post(ENG, {"action": "child-add", "child-name": "data", "child-max": "memory: 10Gi"})
    client.post(ENG, {"action": "limit-save", "index": "0", "limit-0-description": "alice",
                      "limit-0-users": "alice", "limit-0-max_resources": "memory: 30Gi, vcore: 20",
                      "limit-0-max_applications": "4"})
    client.post(ENG, {"action": "limit-delete", "index": "2"})


def test_three_staged_edits_apply_as_one_version(quota_admin_client, admin, active_small):
    _stage_three(quota_admin_client)
    page = quota_admin_client.get(DRAFT).content.decode()
    assert page.count("data-staged=") == 3
    assert 'data-queue="root.eng.data"' in page  # the structured diff lists the new queue
    response = quota_admin_client.post(DRAFT, {"action": "apply", "comment": "three at once"})
    assert response.status_code == 302
    assert ConfigVersion.objects.count() == 2
    version = ConfigVersion.objects.get(number=2)
    assert (version.author, version.comment, version.based_on_id) == (admin, "three at once", 1)
    assert response["Location"] == reverse("config:version", args=[2])
    assert not Draft.objects.exists()
    active = config_from_rows().partition("default").root.children[0]
    assert [child.path for child in active.children] == ["root.eng.data"]
    assert [limit.description for limit in active.limits] == ["alice", "everyone else"]
    assert dict(active.limits[0].max_resources) == {"memory": "30Gi", "vcore": "20"}
    assert engines_get().version("default") == 2


def test_the_impact_preview_lists_who_sits_above_a_tightened_limit(
    quota_admin_client, active_small
):
    with engines_get().engine("default") as engine:
        assert engine.increase(user="alice", groups=["ml"], queue_path="root.eng",
                               resource={"memory": 30 * 2**30}, app_id="a1").allowed
        assert engine.increase(user="bob", groups=[], queue_path="root.eng",
                               resource={"memory": 2**30}, app_id="b1").allowed
    quota_admin_client.post(ENG, {"action": "limit-save", "index": "0",
                                  "limit-0-description": "alice", "limit-0-users": "alice",
                                  "limit-0-max_resources": "memory: 16Gi, vcore: 20",
                                  "limit-0-max_applications": "4"})
    page = quota_admin_client.get(DRAFT).content.decode()
    assert 'data-impact="user:alice" data-queue="root.eng"' in page
    assert "bob" not in page.split("data-impact")[1]  # bob stays under his limit
    assert "1 user or group would sit above a new limit, with 1 running application" in page


def test_unstage_discard_and_nothing_to_apply(quota_admin_client, admin, active_small):
    _stage_three(quota_admin_client)
    # The first change (the new queue) is not needed by the others: it can go.
    quota_admin_client.post(DRAFT, {"action": "unstage", "position": "1"})
    assert [r["kind"] for r in Draft.objects.get(author=admin).edits] == [
        "limit_update", "limit_delete"
    ]
    response = quota_admin_client.post(DRAFT, {"action": "discard"}, follow=True)
    assert views.DISCARDED in response.content.decode()
    assert not Draft.objects.exists()
    response = quota_admin_client.post(DRAFT, {"action": "apply", "comment": ""})
    assert response.status_code == 400
    assert "there is nothing staged to apply" in response.content.decode()
    assert ConfigVersion.objects.count() == 1


def test_unstaging_a_change_later_ones_need_is_refused(quota_admin_client, admin, active_small):
    quota_admin_client.post(ENG, {"action": "child-add", "child-name": "data"})
    data = reverse("config:queue", args=["default", "root.eng.data"])
    quota_admin_client.post(data, {"action": "limit-add", "new-limit-position": "0",
                                   "new-limit-users": "zoe", "new-limit-max_applications": "1"})
    response = quota_admin_client.post(DRAFT, {"action": "unstage", "position": "1"})
    assert response.status_code == 400
    assert "removing change 1 would leave the later changes unusable" in response.content.decode()
    assert len(Draft.objects.get(author=admin).edits) == 2


def test_two_admins_from_the_same_version_the_second_is_refused_and_told_what_changed(
    quota_admin_client, staff_admin_client, staff_admin, active_small
):
    quota_admin_client.post(ENG, {"action": "child-add", "child-name": "data"})
    staff_admin_client.post(ENG, {"action": "child-add", "child-name": "web"})
    first = quota_admin_client.post(DRAFT, {"action": "apply", "comment": "data queue"})
    assert first.status_code == 302
    second = staff_admin_client.post(DRAFT, {"action": "apply", "comment": "web queue"})
    html = second.content.decode()
    assert second.status_code == 409
    assert "Someone else applied a change first" in html
    assert "version 2 is active now" in html
    assert 'data-conflict-author>ada<' in html
    assert 'data-queue="root.eng.data" ' in html or 'data-queue="root.eng.data">' in html
    assert ConfigVersion.objects.count() == 2
    assert Draft.objects.get(author=staff_admin).base_version == 1  # kept, to be rebased
    # Rebased onto version 2, the second admin's draft applies on top of the first's change.
    staff_admin_client.post(DRAFT, {"action": "rebase"})
    third = staff_admin_client.post(DRAFT, {"action": "apply", "comment": "web queue"})
    assert third["Location"] == reverse("config:version", args=[3])
    root = config_from_rows().partition("default").root
    assert [c.path for c in root.children[0].children] == ["root.eng.data", "root.eng.web"]


def test_a_draft_that_no_longer_fits_after_someone_elses_change(
    quota_admin_client, staff_admin_client, admin, active_small
):
    data = reverse("config:queue", args=["default", "root.eng.data"])
    staff_admin_client.post(ENG, {"action": "child-add", "child-name": "data"})
    staff_admin_client.post(DRAFT, {"action": "apply"})
    # The admin stages a limit on root.eng.data; then the other admin deletes that queue.
    quota_admin_client.post(data, {"action": "limit-add", "new-limit-position": "0",
                                   "new-limit-users": "zoe", "new-limit-max_applications": "1"})
    staff_admin_client.post(data, {"action": "queue-delete"})
    staff_admin_client.post(DRAFT, {"action": "apply"})
    page = quota_admin_client.get(DRAFT)
    assert page.status_code == 200
    assert "Your draft no longer fits the active configuration" in page.content.decode()
    assert quota_admin_client.get(data).status_code == 302  # the queue page sends to the draft
    assert ConfigVersion.objects.count() == 3


def test_the_draft_page_is_for_admins_only(viewer_client, active_small):
    assert viewer_client.get(DRAFT).status_code == 403
    assert viewer_client.post(DRAFT, {"action": "apply"}).status_code == 403

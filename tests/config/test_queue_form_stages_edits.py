"""The queue form: an admin's edits are staged in their draft (not applied), valid or not, and
checked against the whole hierarchy; the queue page then shows the draft's values and its
problems on their fields."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.config import views
from quotaweb.config.models import ConfigVersion, Draft

pytestmark = pytest.mark.django_db


def _url(path: str, partition: str = "default") -> str:
    return reverse("config:queue", args=[partition, path])


def _queue_post(**values):
    data = {
        "action": "queue-save", "queue-name": "ml", "queue-guaranteed": "memory: 10G",
        "queue-max": "vcore: 20, nvidia.com/gpu: 4", "queue-max_applications": "5",
        "queue-properties": "", "queue-submit_acl": "", "queue-admin_acl": "", "queue-kind": "",
    }
    data.update({f"queue-{key}": value for key, value in values.items()})
    return data


def test_admin_sees_the_forms_prefilled_with_the_written_values(quota_admin_client, capped_tree):
    html = quota_admin_client.get(_url("root.eng.ml")).content.decode()
    assert 'name="queue-max" value="vcore: 20, nvidia.com/gpu: 4"' in html
    assert 'name="queue-max_applications" value="5"' in html
    assert 'name="limit-0-users" value="alice"' in html
    assert 'data-wildcard-help' in html


def test_a_valid_change_is_staged_not_applied(quota_admin_client, admin, capped_tree):
    response = quota_admin_client.post(_url("root.eng.ml"), _queue_post(max="vcore: 10"))
    assert response.status_code == 302
    assert response["Location"] == _url("root.eng.ml")
    draft = Draft.objects.get(author=admin)
    assert draft.base_version == capped_tree.number
    assert draft.edits == [{
        "kind": "queue_update",
        "args": {"partition": "default", "queue_path": "root.eng.ml",
                 "values": {"max": {"vcore": "10"}}},
    }]
    assert ConfigVersion.objects.count() == 1
    page = quota_admin_client.get(_url("root.eng.ml")).content.decode()
    assert "this page shows your draft's values" in page
    assert "(written vcore: 10)" in page


def test_an_unchanged_form_stages_nothing(quota_admin_client, admin, capped_tree):
    response = quota_admin_client.post(_url("root.eng.ml"), _queue_post(), follow=True)
    assert views.NOTHING_CHANGED in response.content.decode()
    assert not Draft.objects.filter(author=admin).exists()


def test_a_max_above_the_parent_is_staged_and_shown_on_the_max_field(
    quota_admin_client, admin, capped_tree
):
    response = quota_admin_client.post(
        _url("root.eng.ml"), _queue_post(max="vcore: 80"), follow=True
    )
    html = response.content.decode()
    assert response.redirect_chain == [(_url("root.eng.ml"), 302)]
    assert 'data-error-for="max"' in html
    assert "max (80 vcore) is above the tightest max of the queues above (50 vcore)" in html
    assert "(rule R2)" in html
    assert views.DRAFT_HAS_PROBLEMS.format(count=1, plural="") in html
    assert Draft.objects.filter(author=admin).exists()


def test_a_malformed_resource_list_is_a_form_error(quota_admin_client, admin, capped_tree):
    response = quota_admin_client.post(_url("root.eng.ml"), _queue_post(max="lots"))
    assert response.status_code == 400
    assert "could not read &#x27;lots&#x27;" in response.content.decode()
    assert not Draft.objects.exists()


def test_a_bad_quantity_is_shown_on_its_field(quota_admin_client, capped_tree):
    response = quota_admin_client.post(
        _url("root.eng.ml"), _queue_post(guaranteed="memory: 10X"), follow=True
    )
    html = response.content.decode()
    assert 'data-error-for="guaranteed"' in html
    assert "(rule QTY)" in html


def test_renaming_goes_to_the_new_path_and_a_duplicate_name_is_refused(
    quota_admin_client, admin, capped_tree
):
    response = quota_admin_client.post(_url("root.eng.web"), _queue_post(
        name="ML", guaranteed="", max="", max_applications="10",
    ), follow=True)
    assert "duplicate child name found with name &#x27;ML&#x27;" in response.content.decode()
    quota_admin_client.post(reverse("config:draft"), {"action": "unstage", "position": "1"})
    response = quota_admin_client.post(_url("root.eng.web"), _queue_post(
        name="frontend", guaranteed="", max="", max_applications="10",
    ))
    assert response["Location"] == _url("root.eng.frontend")
    assert quota_admin_client.get(_url("root.eng.frontend")).status_code == 200


def test_adding_a_child_queue_opens_it_from_the_draft(quota_admin_client, admin, capped_tree):
    response = quota_admin_client.post(_url("root.eng"), {
        "action": "child-add", "child-name": "data", "child-max": "memory: 20Gi",
        "child-max_applications": "3",
    })
    assert response["Location"] == _url("root.eng.data")
    html = quota_admin_client.get(_url("root.eng.data")).content.decode()
    assert "memory 20 GiB" in html
    assert ConfigVersion.objects.count() == 1


def test_a_child_without_the_max_applications_its_parent_requires(quota_admin_client, capped_tree):
    response = quota_admin_client.post(_url("root.eng"), {
        "action": "child-add", "child-name": "data",
    }, follow=True)
    html = response.content.decode()
    assert response.redirect_chain == [(_url("root.eng.data"), 302)]
    assert 'data-error-for="max_applications"' in html
    assert "the parent queue root.eng allows 10: set a value from 1 to 10" in html


def test_deleting_a_queue_stages_it_and_goes_to_the_parent(quota_admin_client, admin, capped_tree):
    response = quota_admin_client.post(_url("root.eng.web"), {"action": "queue-delete"})
    assert response["Location"] == _url("root.eng")
    assert quota_admin_client.get(_url("root.eng.web")).status_code == 404
    assert Draft.objects.get(author=admin).edits[0]["kind"] == "queue_delete"


def test_the_root_cannot_be_deleted_and_its_form_has_no_name(quota_admin_client, capped_tree):
    html = quota_admin_client.get(_url("root")).content.decode()
    assert 'name="queue-name"' not in html
    assert 'value="queue-delete"' not in html
    response = quota_admin_client.post(_url("root"), {"action": "queue-delete"})
    assert response.status_code == 400
    assert "the root queue cannot be deleted" in response.content.decode()


def test_an_unknown_action_is_a_400_that_changes_nothing(quota_admin_client, capped_tree):
    response = quota_admin_client.post(_url("root.eng"), {"action": "explode"})
    assert response.status_code == 400
    assert "There is no action &#x27;explode&#x27; here" in response.content.decode()
    assert not Draft.objects.exists()

"""The limit-entry editor: add, change, reorder and remove entries of a queue, each staged in the
admin's draft; an invalid entry shows the validator's error on the field it is about."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotaweb.config.models import ConfigVersion, Draft

pytestmark = pytest.mark.django_db

ML = reverse("config:queue", args=["default", "root.eng.ml"])


def _entry(prefix: str, **values) -> dict[str, str]:
    data = {"description": "", "users": "", "groups": "", "max_resources": "",
            "max_applications": ""}
    data.update(values)
    return {f"{prefix}-{key}": value for key, value in data.items()}


def _entries(client) -> list[str]:
    return re.findall(r"<h3>([^<]*)", client.get(ML).content.decode())


def _staged(admin) -> list[dict]:
    return Draft.objects.get(author=admin).edits


def test_a_new_entry_goes_before_the_first_wildcard_by_default(quota_admin_client, capped_tree):
    html = quota_admin_client.get(ML).content.decode()
    assert '<option value="1" selected>2: before “everyone else”</option>' in html


def test_a_new_entry_is_staged_with_names_split_on_commas_and_spaces(
    quota_admin_client, admin, capped_tree
):
    response = quota_admin_client.post(ML, {"action": "limit-add", "new-limit-position": "1",
                                            **_entry(
        "new-limit", description="interns", users="bob, carol dave", max_resources="memory: 1G",
        max_applications="1",
    )})
    assert response.status_code == 302
    (record,) = _staged(admin)
    assert record["kind"] == "limit_create"
    assert record["args"]["position"] == 1
    assert record["args"]["values"] == {
        "description": "interns", "users": ["bob", "carol", "dave"], "groups": [],
        "max_resources": {"memory": "1G"}, "max_applications": 1,
    }
    assert _entries(quota_admin_client) == [
        "1. lead", "2. interns", "3. everyone else", "4. ml group", "5. other groups"
    ]


def test_a_named_user_after_a_wildcard_entry_is_shown_on_users(quota_admin_client, capped_tree):
    response = quota_admin_client.post(ML, {"action": "limit-add", "new-limit-position": "4",
                                            **_entry("new-limit", users="bob",
                                                     max_applications="1")}, follow=True)
    assert response.redirect_chain == [(ML, 302)]
    assert 'data-editor="limit-4" open' in response.content.decode()
    assert (
        "should not set no wildcard user bob after wildcard user limit (rule L4)"
    ) in response.content.decode()


def test_a_user_limit_above_the_queue_max_is_shown_on_max_resources(
    quota_admin_client, admin, capped_tree
):
    # root.eng.ml caps vcore at 20; a user limit of 30 vcore goes above it (rule L12).
    response = quota_admin_client.post(ML, {"action": "limit-add", "new-limit-position": "1",
                                            **_entry("new-limit", description="big", users="bob",
                                                     max_resources="vcore: 30")},
                                       follow=True)
    html = response.content.decode()
    assert response.redirect_chain == [(ML, 302)]
    assert 'data-error-for="max_resources"' in html
    assert (
        "max resources of limit &#x27;big&#x27; (30 vcore) go above this queue&#x27;s max "
        "(20 vcore) (rule L12)"
    ) in html
    # Staged in the draft, which cannot be applied yet; nothing is applied.
    assert Draft.objects.get(author=admin).edits[0]["kind"] == "limit_create"
    assert ConfigVersion.objects.count() == 1


def test_a_named_user_after_the_wildcard_is_shown_on_users(quota_admin_client, capped_tree):
    response = quota_admin_client.post(ML, {"action": "limit-save", "index": "1", **_entry(
        "limit-1", description="everyone else", users="*, zed", max_resources="memory: 2G",
        max_applications="1",
    )}, follow=True)
    html = response.content.decode()
    assert response.redirect_chain == [(ML, 302)]
    assert 'data-error-for="users"' in html
    assert "should not set no wildcard user zed after wildcard user limit (rule L4)" in html
    # The entry's editor is open, with what the admin typed.
    assert 'data-editor="limit-1" open' in html
    assert 'value="*, zed"' in html


def test_changing_an_entry_stages_only_the_changed_fields(quota_admin_client, admin, capped_tree):
    response = quota_admin_client.post(ML, {"action": "limit-save", "index": "0", **_entry(
        "limit-0", description="lead", users="alice", max_resources="memory: 8G, vcore: 4",
        max_applications="2",
    )})
    assert response.status_code == 302
    (record,) = _staged(admin)
    assert record["args"] == {"partition": "default", "queue_path": "root.eng.ml", "index": 0,
                              "values": {"max_applications": 2}}


def test_moving_and_removing_entries(quota_admin_client, admin, capped_tree):
    quota_admin_client.post(ML, {"action": "limit-up", "index": "2"})
    quota_admin_client.post(ML, {"action": "limit-delete", "index": "0"})
    assert [r["kind"] for r in _staged(admin)] == ["limit_move", "limit_delete"]
    assert _entries(quota_admin_client) == ["1. ml group", "2. everyone else", "3. other groups"]


def test_moving_a_named_entry_below_the_wildcard_is_staged_with_its_problem(
    quota_admin_client, capped_tree
):
    response = quota_admin_client.post(ML, {"action": "limit-down", "index": "0"}, follow=True)
    assert response.redirect_chain == [(ML, 302)]
    assert "(rule L4)" in response.content.decode()
    assert Draft.objects.exists()


def test_removing_the_named_group_a_group_wildcard_needs_is_staged_with_its_problem(
    quota_admin_client, admin, capped_tree
):
    response = quota_admin_client.post(ML, {"action": "limit-delete", "index": "2"}, follow=True)
    assert response.redirect_chain == [(ML, 302)]
    assert "(rule L8)" in response.content.decode()
    assert Draft.objects.filter(author=admin).exists()


def test_an_index_that_is_not_an_entry_is_a_400(quota_admin_client, capped_tree):
    for index in ("9", "-1", "x", ""):
        response = quota_admin_client.post(ML, {"action": "limit-delete", "index": index})
        assert response.status_code == 400
        assert "There is no limit entry" in response.content.decode()
    assert not Draft.objects.exists()

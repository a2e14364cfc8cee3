"""The team links page: admins create, list and revoke links; viewers cannot."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.accounts.models import TeamLink
from quotaweb.teams import views

pytestmark = pytest.mark.django_db

LINKS = reverse("teams:links")


def test_an_admin_creates_a_link_and_sees_it_listed(quota_admin_client, admin, capped_engines):
    response = quota_admin_client.post(
        LINKS, {"partition": "default", "kind": "group", "name": "ml", "label": "ML wall"},
        follow=True,
    )
    html = response.content.decode()
    link = TeamLink.objects.get()
    assert (link.kind, link.name, link.label, link.created_by) == ("group", "ml", "ML wall", admin)
    assert views.CREATED.format(kind="group", name="ml") in html
    assert f"/team/{link.token}/" in html


def test_a_bad_name_is_shown_on_the_form(quota_admin_client, capped_engines):
    response = quota_admin_client.post(
        LINKS, {"partition": "default", "kind": "group", "name": "*"}
    )
    assert response.status_code == 400
    assert 'data-error-for="name"' in response.content.decode()
    assert not TeamLink.objects.exists()


def test_revoking_hides_the_link_and_ends_it(quota_admin_client, admin, capped_engines):
    quota_admin_client.post(LINKS, {"partition": "default", "kind": "user", "name": "alice"})
    link = TeamLink.objects.get()
    response = quota_admin_client.post(reverse("teams:revoke", args=[link.pk]), follow=True)
    link.refresh_from_db()
    assert link.revoked is not None
    assert f"/team/{link.token}/" not in response.content.decode()
    response = quota_admin_client.post(reverse("teams:revoke", args=[999]), follow=True)
    assert views.ERR_NO_LINK.format(link_id=999) in response.content.decode()


def test_viewers_cannot_see_or_make_links(viewer_client, capped_engines):
    assert viewer_client.get(LINKS).status_code == 403
    assert viewer_client.post(LINKS, {"partition": "default", "kind": "group",
                                      "name": "ml"}).status_code == 403
    assert not TeamLink.objects.exists()

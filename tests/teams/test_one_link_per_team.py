"""One active link per team and partition: asking again points at the existing link, unless the
admin asks for another (one per screen, say); a revoked link no longer counts."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from quotaweb.accounts.models import TeamLink
from quotaweb.teams import services

pytestmark = pytest.mark.django_db

LINKS = reverse("teams:links")
ML = {"partition": "default", "kind": "group", "name": "ml"}


def test_a_second_link_is_refused_naming_the_first(admin, capped_engines):
    first = services.team_link_create(author=admin, **ML)
    with pytest.raises(services.TeamLinkExists) as refused:
        services.team_link_create(author=admin, **ML)
    assert refused.value.link == first
    assert str(refused.value) == services.ERR_EXISTS.format(
        kind="group", name="ml", partition="default", created=timezone.localtime(first.created)
    )
    # Another kind or name is another team.
    services.team_link_create(author=admin, partition="default", kind="user", name="alice")
    assert TeamLink.objects.count() == 2


def test_another_link_when_asked_and_after_revoking(admin, capped_engines):
    first = services.team_link_create(author=admin, **ML)
    second = services.team_link_create(author=admin, another=True, **ML)
    assert second.token != first.token
    services.team_link_revoke(link_id=first.pk)
    services.team_link_revoke(link_id=second.pk)
    services.team_link_create(author=admin, **ML)
    assert TeamLink.objects.filter(revoked__isnull=True).count() == 1


def test_the_page_offers_another_only_after_refusing(quota_admin_client, capped_engines):
    assert quota_admin_client.post(LINKS, ML).status_code == 302
    assert 'name="another"' not in quota_admin_client.get(LINKS).content.decode()
    response = quota_admin_client.post(LINKS, ML)
    html = response.content.decode()
    assert response.status_code == 400
    assert 'data-error-for="name"' in html
    assert 'name="another"' in html
    assert TeamLink.objects.count() == 1
    assert quota_admin_client.post(LINKS, {**ML, "another": "on"}).status_code == 302
    assert TeamLink.objects.count() == 2

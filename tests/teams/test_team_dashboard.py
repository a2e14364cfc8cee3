"""The team dashboard: whoever has the link sees that team's usage, read-only and without a
login; a revoked or unknown link says so; kiosk mode hides the site's header."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.allocations import services as allocations
from quotaweb.allocations.services import allocation_request
from quotaweb.teams import views
from quotaweb.teams.services import team_link_create, team_link_revoke
from tests.api.allocation_support import GiB, body
from tests.config.pages import posting_forms

pytestmark = pytest.mark.django_db


@pytest.fixture
def ml_link(admin, capped_engines):
    allocations.allocation_create(
        partition="default", request=allocation_request(body("k1", memory=2 * GiB))
    )
    return team_link_create(partition="default", kind="group", name="ml", label="ML wall",
                            author=admin)


def _url(link) -> str:
    return reverse("team-dashboard", args=[link.token])


def test_the_link_shows_its_team_without_a_login(client, ml_link):
    response = client.get(_url(ml_link))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Group <code>ml</code>" in html
    assert "ML wall" in html
    assert "memory 2 GiB" in html
    # The page's socket opens with the link and asks for the team's scope only.
    assert f'data-token="{ml_link.token}"' in html
    assert 'data-scopes="group:ml"' in html
    assert posting_forms(html) == []


def test_kiosk_mode_leaves_out_the_site_header(client, ml_link):
    assert 'class="topbar"' in client.get(_url(ml_link)).content.decode()
    kiosk = client.get(_url(ml_link) + "?kiosk=1").content.decode()
    assert 'class="topbar"' not in kiosk
    assert '<body class="kiosk">' in kiosk


def test_a_revoked_or_unknown_link_says_so(client, ml_link):
    team_link_revoke(link_id=ml_link.pk)
    for url in (_url(ml_link), reverse("team-dashboard", args=["nope"])):
        response = client.get(url)
        assert response.status_code == 404
        assert views.ERR_LINK_INVALID in response.content.decode()


def test_a_team_without_usage_gets_an_empty_state(client, admin, capped_engines):
    link = team_link_create(partition="default", kind="user", name="nobody", author=admin,
                            confirm_unknown=True)
    response = client.get(_url(link))
    assert response.status_code == 200
    assert "data-empty" in response.content.decode()


def test_writes_are_refused(client, ml_link):
    assert client.post(_url(ml_link)).status_code == 405

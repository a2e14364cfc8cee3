"""A team link names a group or user the partition knows: the form offers the names its limits
name and its engine tracks; a name nobody knows (a typo, most often) is refused with a warning
until the admin confirms it."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotaweb.accounts.models import TeamLink
from quotaweb.allocations import services as allocations
from quotaweb.allocations.services import allocation_request
from quotaweb.teams import services
from quotaweb.teams.selectors import team_names_known
from tests.api.allocation_support import GiB, body

pytestmark = pytest.mark.django_db

LINKS = reverse("teams:links")


def _options(html: str, list_id: str) -> list[str]:
    datalist = re.search(rf'<datalist id="{list_id}">(.*?)</datalist>', html, re.S)
    assert datalist, list_id
    return re.findall(r'<option value="([^"]*)">', datalist.group(1))


def test_the_names_come_from_the_limits_and_the_trackers(capped_engines):
    allocations.allocation_create(
        partition="default", request=allocation_request(body("k1", user="zed", groups=["ops"],
                                                             memory=GiB)),
    )
    known = team_names_known(partition="default")
    assert "alice" in known.users
    assert "zed" in known.users
    assert "ml" in known.groups
    assert "*" not in known.users + known.groups
    assert team_names_known(partition="nope").users == []


def test_the_form_offers_the_known_names_for_the_chosen_kind(quota_admin_client, capped_engines):
    html = quota_admin_client.get(LINKS).content.decode()
    assert "ml" in _options(html, "team-names-default-group")
    assert "alice" in _options(html, "team-names-default-user")
    assert "alice" not in _options(html, "team-names-default-group")


def test_an_unknown_name_is_refused_until_confirmed(quota_admin_client, admin, capped_engines):
    data = {"partition": "default", "kind": "group", "name": "mll"}
    message = services.ERR_UNKNOWN_NAME.format(partition="default", kind="group", name="mll")
    with pytest.raises(services.TeamNameUnknown) as refused:
        services.team_link_create(author=admin, **data)
    assert str(refused.value) == message

    response = quota_admin_client.post(LINKS, data)
    html = response.content.decode()
    assert response.status_code == 400
    assert 'data-error-for="name"' in html
    assert message.replace("'", "&#x27;") in html
    assert 'name="confirm_unknown"' in html
    assert not TeamLink.objects.exists()

    response = quota_admin_client.post(LINKS, {**data, "confirm_unknown": "on"})
    assert response.status_code == 302
    assert TeamLink.objects.get().name == "mll"


def test_the_confirm_box_is_offered_only_after_the_warning(quota_admin_client, capped_engines):
    assert 'name="confirm_unknown"' not in quota_admin_client.get(LINKS).content.decode()

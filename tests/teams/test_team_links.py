"""Team-dashboard links: created for a valid group or user of a configured partition, listed,
and revoked (revoking twice keeps the first time)."""

from __future__ import annotations

import pytest

from quotaweb.accounts.models import TeamLink
from quotaweb.accounts.selectors import team_link_active
from quotaweb.engine.gateway import ERR_PARTITION
from quotaweb.teams import services
from quotaweb.teams.selectors import team_links_list

pytestmark = pytest.mark.django_db


def test_a_link_is_made_with_an_unguessable_token(admin, capped_engines):
    link = services.team_link_create(
        partition="default", kind="group", name="ml", label="ML team screen", author=admin
    )
    other = services.team_link_create(partition="default", kind="user", name="alice",
                                      author=admin)
    assert len(link.token) >= 40
    assert link.token != other.token
    assert link.scope_text == "group:ml"
    assert list(team_links_list()) == [other, link]
    assert team_link_active(token=link.token) == link


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "queue", "name": "root"}, services.ERR_KIND.format(kind="queue")),
        ({"kind": "group", "name": "*"}, services.ERR_NAME.format(name="*", kind="group")),
        ({"kind": "user", "name": "bad name"},
         services.ERR_NAME.format(name="bad name", kind="user")),
        ({"kind": "group", "name": "ml", "partition": "nope"},
         ERR_PARTITION.format(partition="nope")),
    ],
)
def test_invalid_links_are_refused(admin, capped_engines, kwargs, message):
    arguments = {"partition": "default", "author": admin, **kwargs}
    with pytest.raises(services.TeamLinkInvalid) as refused:
        services.team_link_create(**arguments)
    assert str(refused.value) == message
    assert not TeamLink.objects.exists()


def test_revoking_ends_the_link_once(admin, capped_engines):
    link = services.team_link_create(partition="default", kind="group", name="ml", author=admin)
    first = services.team_link_revoke(link_id=link.pk).revoked
    assert first is not None
    assert services.team_link_revoke(link_id=link.pk).revoked == first
    assert team_link_active(token=link.token) is None
    with pytest.raises(TeamLink.DoesNotExist):
        services.team_link_revoke(link_id=link.pk + 100)

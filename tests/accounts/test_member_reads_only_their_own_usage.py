"""A member (a directory user in neither role group) reads their own usage and their groups'
usage, and nothing else: every other page, API read and live scope is refused, never answered."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.accounts.decorators import ERR_MEMBER_PAGE
from quotaweb.allocations import services as allocations
from quotaweb.allocations.services import allocation_request
from quotaweb.api.permissions import ERR_MEMBER_SCOPE
from tests.api.allocation_support import GiB, body

pytestmark = pytest.mark.django_db

YK = "/ws/v1/partition/default"


@pytest.fixture
def running(capped_engines):
    """alice runs 2 GiB against group ml; bob 1 GiB against group other."""
    for key, user, groups, memory in (("k1", "alice", ["ml"], 2), ("k2", "bob", ["other"], 1)):
        admission = allocations.allocation_create(partition="default", request=allocation_request(
            body(key, user=user, groups=groups, memory=memory * GiB, app=f"app-{user}")
        ))
        assert admission.allowed


def test_home_is_my_usage_for_a_member(member_client, running):
    response = member_client.get("/")
    assert response.status_code == 302
    assert response["Location"] == reverse("my-usage")


@pytest.mark.parametrize("path", [
    "/usage/default/", "/usage/default/users/", "/usage/default/users/bob/",
    "/usage/default/users/alice/", "/usage/default/groups/other/", "/usage/default/activity/",
    "/config/", "/elastic/", "/trees/", "/teams/", "/accounts/sign-ins/",
])
def test_every_other_page_is_refused(member_client, running, path):
    response = member_client.get(path, follow=True)
    assert response.status_code == 403
    html = response.content.decode()
    assert ERR_MEMBER_PAGE.format(username="alice").replace("'", "&#x27;") in html
    assert "app-bob" not in html


def test_my_usage_shows_her_and_her_group_and_nobody_else(member_client, running):
    response = member_client.get(reverse("my-usage"))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-scopes="user:alice"' in html
    assert 'data-scopes="group:ml"' in html
    assert "memory 2 GiB" in html
    assert "app-alice" in html
    assert "bob" not in html
    assert "group:other" not in html
    # Room left: the API's headroom at each of her queues, and what binds first.
    assert "Binds first" in html
    assert "<code>root.eng</code>" in html
    # No links to the pages she may not open.
    assert 'data-queue-url' not in html


@pytest.mark.parametrize(("path", "status"), [
    (f"{YK}/usage/user/alice", 200),
    (f"{YK}/usage/group/ml", 200),
    (f"{YK}/usage/user/bob", 403),
    (f"{YK}/usage/group/other", 403),
    (f"{YK}/usage/users", 403),
    (f"{YK}/usage/groups", 403),
    (f"{YK}/queues", 403),
    ("/api/v1/partitions/default/headroom?queuePath=root.eng&user=alice&groups=ml"
     "&applicationId=x", 200),
    ("/api/v1/partitions/default/headroom?queuePath=root.eng&user=bob&applicationId=x", 403),
    ("/api/v1/partitions/default/headroom?queuePath=root.eng&user=alice&groups=other"
     "&applicationId=x", 403),
    ("/api/v1/partitions/default/events", 403),
])
def test_the_api_answers_her_own_scope_only(member, running, path, status):
    from tests.personas import token_client

    response = token_client(member).get(path)
    assert response.status_code == status, response.content
    if status == 403:
        text = response.content.decode()
        assert "app-bob" not in text
        assert ERR_MEMBER_SCOPE.format(username="alice", groups="ml") in text


def test_her_own_usage_through_the_api_is_the_engines(member, running):
    from tests.personas import token_client

    found = token_client(member).get(f"{YK}/usage/user/alice").json()
    assert found["userName"] == "alice"
    assert found["queues"]["resourceUsage"] == {"memory": 2 * GiB}


def test_she_cannot_allocate(member, running):
    from tests.personas import token_client

    response = token_client(member).post(
        "/api/v1/partitions/default/allocations", body("k9", user="alice"),
        content_type="application/json",
    )
    assert response.status_code == 403

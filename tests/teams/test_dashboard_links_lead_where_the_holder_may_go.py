"""A team dashboard seen with only the link has no links to the usage pages (they would send the
holder to the login page) and shows who runs each of the group's applications; someone logged in
gets the links."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from quotaweb.allocations import services as allocations
from quotaweb.allocations.services import allocation_request
from quotaweb.teams.services import team_link_create
from tests.api.allocation_support import GiB, body

pytestmark = pytest.mark.django_db


@pytest.fixture
def ml_url(admin, capped_engines):
    allocations.allocation_create(
        partition="default",
        request=allocation_request(body("k1", user="alice", groups=["ml"], memory=2 * GiB)),
    )
    link = team_link_create(partition="default", kind="group", name="ml", author=admin)
    return reverse("team-dashboard", args=[link.token])


def _content(html: str) -> str:
    return html.split("<main", 1)[1]


def test_the_link_holder_gets_names_not_links(client, ml_url):
    page = client.get(ml_url).content.decode()
    # Not in the header either: the overview and the login page are no places for the holder.
    assert re.findall(r'<a [^>]*href="(/[^"?]*)', page) == ["/healthz"]
    html = _content(page)
    assert "/usage/" not in html
    assert "data-queue-url" not in html
    apps = re.search(r'<tbody data-rows="apps">(.*?)</tbody>', html, re.S).group(1)
    assert "<td>alice</td>" in apps
    assert "unknown" not in apps
    tree = re.search(r'<tbody data-rows="tree">(.*?)</tbody>', html, re.S).group(1)
    assert '<th scope="row" class="qname">eng</th>' in tree


def test_a_logged_in_viewer_gets_the_links(viewer_client, ml_url):
    html = _content(viewer_client.get(ml_url).content.decode())
    assert "data-queue-url=" in html
    assert re.search(r'<a href="/usage/[^"]*alice', html)

"""Who may read the usage pages, and what unknown things and a starting server answer."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.usage import page_selectors, views
from tests.config.pages import posting_forms
from tests.usage.pages import ODD_USER, engines_busy

pytestmark = pytest.mark.django_db

PAGES = [
    reverse("usage:overview", args=["default"]),
    reverse("usage:users", args=["default"]),
    reverse("usage:user", args=["default", "alice"]),
    reverse("usage:groups", args=["default"]),
    reverse("usage:group", args=["default", "ml"]),
    reverse("usage:queue", args=["default", "root.eng"]),
    reverse("usage:activity", args=["default"]),
]


@pytest.fixture
def busy(db):
    return engines_busy()


@pytest.mark.parametrize("url", [reverse("usage:index"), *PAGES])
def test_anonymous_visitors_are_sent_to_log_in(outsider, url):
    response = outsider.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('accounts:login')}?next={url}"


@pytest.mark.parametrize("url", PAGES)
def test_a_viewer_reads_every_page_and_sees_no_control_that_changes_anything(
    viewer_client, busy, url
):
    response = viewer_client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert posting_forms(html) == []
    assert 'data-live-badge data-state="static"' in html
    assert '<script type="module" src="/static/js/live.js"></script>' in html


@pytest.mark.parametrize("url", PAGES)
def test_the_pages_only_read(quota_admin_client, busy, url):
    assert quota_admin_client.post(url).status_code == 405


def test_usage_opens_the_first_partition(viewer_client, busy):
    response = viewer_client.get(reverse("usage:index"))
    assert response.status_code == 302
    assert response["Location"] == reverse("usage:overview", args=["default"])


def test_the_main_navigation_links_to_usage(viewer_client, busy):
    html = viewer_client.get(reverse("core:home")).content.decode()
    assert f'<a href="{reverse("usage:index")}">Usage</a>' in html
    html = viewer_client.get(PAGES[1]).content.decode()
    assert f'<a href="{reverse("usage:index")}" aria-current="page">Usage</a>' in html


def test_names_with_slash_at_hash_and_colon_are_reachable(viewer_client, busy):
    url = reverse("usage:user", args=["default", ODD_USER])
    assert url == "/usage/default/users/ci/runner@corp%231:x/"
    response = viewer_client.get(url)
    assert response.status_code == 200
    assert "User <code>ci/runner@corp#1:x</code>" in response.content.decode()
    assert f'data-scopes="user:{ODD_USER}"' in response.content.decode()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (reverse("usage:overview", args=["nope"]),
         page_selectors.ERR_UNKNOWN_PARTITION.format(partition="nope", known="default, gpu")),
        (reverse("usage:activity", args=["nope"]),
         page_selectors.ERR_UNKNOWN_PARTITION.format(partition="nope", known="default, gpu")),
        (reverse("usage:user", args=["default", "zoe"]),
         page_selectors.ERR_USER.format(name="zoe", partition="default")),
        (reverse("usage:user", args=["default", "1-not-a-user"]),
         page_selectors.ERR_USER.format(name="1-not-a-user", partition="default")),
        (reverse("usage:user", args=["gpu", "alice"]),
         page_selectors.ERR_USER.format(name="alice", partition="gpu")),
        (reverse("usage:group", args=["default", "nobody"]),
         page_selectors.ERR_GROUP.format(name="nobody", partition="default")),
        (reverse("usage:queue", args=["default", "root.nope"]),
         page_selectors.ERR_QUEUE.format(path="root.nope", partition="default")),
    ],
)
def test_something_unknown_is_the_sites_404_with_what_is_missing(viewer_client, busy, url, message):
    from django.utils.html import escape

    response = viewer_client.get(url)
    assert response.status_code == 404
    html = response.content.decode()
    assert f"<h1 id=\"problem-heading\">{views.TITLE_NOT_FOUND}</h1>" in html
    assert escape(message) in html


@pytest.mark.parametrize("url", [reverse("usage:index"), *PAGES])
def test_without_engines_the_pages_say_the_server_is_starting(viewer_client, url):
    from django.utils.html import escape

    response = viewer_client.get(url)
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert escape(views.ERR_STARTING) in response.content.decode()


def test_a_configuration_without_partitions_is_explained(viewer_client, db, monkeypatch):
    from django.utils.html import escape

    from quotaweb.engine.gateway import Gateway

    monkeypatch.setattr(page_selectors, "engines_get", lambda: Gateway({}))
    response = viewer_client.get(reverse("usage:index"))
    assert response.status_code == 404
    assert escape(page_selectors.ERR_NO_PARTITIONS) in response.content.decode()

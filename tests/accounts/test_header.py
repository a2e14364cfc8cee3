"""Every page's header says who is logged in and in which role, with a logout button."""

import re

import pytest

pytestmark = pytest.mark.django_db


def header(client, url="/") -> str:
    html = client.get(url).content.decode()
    return re.search(r'<header class="topbar">.*?</header>', html, re.S).group(0)


@pytest.mark.parametrize(
    ("client_fixture", "username", "role", "label"),
    [
        ("quota_admin_client", "ada", "admin", "quota admin"),
        ("staff_admin_client", "stan", "admin", "quota admin"),
        ("viewer_client", "vera", "viewer", "viewer"),
    ],
)
def test_the_overview_shows_who_is_logged_in_and_their_role(
    request, client_fixture, username, role, label
):
    shown = header(request.getfixturevalue(client_fixture))

    assert f"<strong data-username>{username}</strong>" in shown
    assert f'data-role="{role}">{label}</span>' in shown


def test_logout_is_a_form_posting_with_a_csrf_token(viewer_client):
    shown = header(viewer_client)

    form = re.search(r'<form[^>]*action="/accounts/logout/"[^>]*>.*?</form>', shown, re.S)
    assert form
    assert 'method="post"' in form.group(0)
    assert 'name="csrfmiddlewaretoken"' in form.group(0)
    assert ">Log out</button>" in form.group(0)


def test_anonymous_visitors_see_no_account_details(outsider):
    shown = header(outsider, "/accounts/login/?next=/")  # the only page they may open

    assert "data-username" not in shown
    assert "Log out" not in shown


def test_the_login_page_shows_who_is_already_logged_in(viewer_client):
    html = viewer_client.get("/accounts/login/").content.decode()

    assert "You are already logged in as <strong>vera</strong>" in html


def test_the_refusal_page_keeps_the_header(viewer_client):
    # The 403 page extends base.html too, so the viewer sees who they are logged in as.
    from django.test import override_settings

    with override_settings(ROOT_URLCONF="tests.accounts.test_access"):
        response = viewer_client.post("/limits/write/")

    assert response.status_code == 403
    assert "<strong data-username>vera</strong>" in response.content.decode()

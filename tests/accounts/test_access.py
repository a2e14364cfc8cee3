"""``viewer_required`` and ``admin_required`` on views defined here.

Anonymous visitors are sent to log in; viewers read; every write needs a quota admin, also when
the viewer's POST carries a valid CSRF token.
"""

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import path
from django.views.decorators.csrf import csrf_protect

from quotaweb.accounts.decorators import admin_required, viewer_required
from quotaweb.urls import urlpatterns as site_urlpatterns

pytestmark = pytest.mark.django_db

WRITES = ["POST", "PUT", "PATCH", "DELETE"]
CSRF_SECRET = "a" * 32  # Django accepts the unmasked secret as the token


@viewer_required
def queue_page(request):
    return HttpResponse(f"{request.method} done")


@admin_required
def queue_editor(request):
    return HttpResponse(f"{request.method} done")


@viewer_required
async def queue_page_async(request):
    return HttpResponse(f"{request.method} done")


# The whole site plus one protected write, so a request runs through every middleware.
urlpatterns = [path("limits/write/", queue_page), *site_urlpatterns]


def call(view, user, method="GET", path="/queues/root.eng/"):
    request = RequestFactory().generic(method, path)
    request.user = user
    return view(request)


# -- anonymous visitors --------------------------------------------------------------------------


@pytest.mark.parametrize("view", [queue_page, queue_editor])
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_anonymous_visitors_are_sent_to_the_login_page(view, method):
    response = call(view, AnonymousUser(), method)

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/queues/root.eng/"


# -- viewer_required -----------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["GET", "HEAD", "OPTIONS"])
def test_viewers_may_read(viewer, method):
    assert call(queue_page, viewer, method).status_code == 200


@pytest.mark.parametrize("method", WRITES)
def test_a_viewers_write_is_refused_with_a_reason(viewer, method):
    with pytest.raises(PermissionDenied) as refused:
        call(queue_page, viewer, method)

    message = str(refused.value)
    assert "You are logged in as vera, a viewer" in message
    assert f"this {method} request was refused and nothing was changed" in message
    assert "quota-admins" in message


@pytest.mark.parametrize("persona", ["admin", "staff_admin"])
@pytest.mark.parametrize("method", ["GET", *WRITES])
def test_admins_may_read_and_write(request, persona, method):
    user = request.getfixturevalue(persona)

    assert call(queue_page, user, method).content == f"{method} done".encode()


def test_an_inactive_account_is_refused_even_reading(staff_admin):
    staff_admin.is_active = False

    with pytest.raises(PermissionDenied, match="The account stan is disabled"):
        call(queue_page, staff_admin)


# -- admin_required ------------------------------------------------------------------------------


def test_admin_pages_refuse_viewers_even_reading(viewer):
    with pytest.raises(PermissionDenied, match="This page is for quota admins"):
        call(queue_editor, viewer)


@pytest.mark.parametrize("persona", ["admin", "staff_admin"])
def test_admin_pages_serve_admins(request, persona):
    user = request.getfixturevalue(persona)

    assert call(queue_editor, user, "POST").status_code == 200


# -- async views ---------------------------------------------------------------------------------


def test_async_views_get_the_same_checks(viewer, admin):
    # async_to_sync runs the role check back on this thread, on the test's database connection.
    view = async_to_sync(queue_page_async)

    assert call(view, viewer).status_code == 200
    with pytest.raises(PermissionDenied):
        call(view, viewer, "POST")
    assert call(view, admin, "POST").content == b"POST done"
    assert call(view, AnonymousUser(), "POST").status_code == 302


# -- forged writes: a valid CSRF token does not make a viewer an admin ---------------------------


def forged_post(user):
    """A POST that passes Django's CSRF check: the token matches the cookie."""
    request = RequestFactory().post(
        "/limits/write/", {"csrfmiddlewaretoken": CSRF_SECRET, "max": "1Ti"}
    )
    request.COOKIES[settings.CSRF_COOKIE_NAME] = CSRF_SECRET
    request.user = user
    return csrf_protect(queue_page)(request)


def test_a_viewers_post_with_a_valid_csrf_token_is_refused(viewer):
    with pytest.raises(PermissionDenied, match="a viewer"):
        forged_post(viewer)


def test_the_same_post_from_an_admin_passes_so_the_token_was_valid(admin):
    assert forged_post(admin).content == b"POST done"


@pytest.mark.urls(__name__)
@pytest.mark.parametrize(("persona", "status"), [("viewer", 403), ("admin", 200)])
def test_a_post_with_the_token_from_the_page_is_refused_for_viewers(request, persona, status):
    # End to end: a real session, the token the site itself handed out, every middleware.
    client = Client(enforce_csrf_checks=True)
    client.force_login(request.getfixturevalue(persona))
    client.get("/")  # the logout form on every page sets the CSRF cookie
    token = client.cookies[settings.CSRF_COOKIE_NAME].value

    response = client.post("/limits/write/", {"csrfmiddlewaretoken": token})

    assert response.status_code == status
    if status == 403:
        html = response.content.decode()
        assert "nothing was changed" in html
        assert "CSRF" not in html  # refused for the role, not for the token


@pytest.mark.urls(__name__)
def test_a_post_without_a_token_is_still_refused_by_csrf(admin):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)

    assert client.post("/limits/write/").status_code == 403

"""Login and logout: Django's auth views with quotaweb's templates and messages."""

from __future__ import annotations

import math

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from quotaweb.accounts.forms import LoginForm

MSG_LOGGED_OUT = "You are logged out."
ERR_LOCKED_OUT = (
    "Too many failed logins for this account or from this address: logging in is paused, even "
    "with the right password. Try again in {wait}; each further try starts the wait "
    "again. A quota admin can lift the pause sooner (docs/deployment.md, \"Sign-in throttling\")."
)


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    authentication_form = LoginForm


class LogoutView(auth_views.LogoutView):
    # Django's LogoutView accepts POST only: a link or an image tag cannot log anyone out.

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        # Added after the session was flushed, so the message survives into the next page.
        messages.info(request, MSG_LOGGED_OUT)
        return response


def lockout_wait(seconds: int) -> str:
    """The cool-off in whole minutes, rounded up, for the lockout page."""
    minutes = max(1, math.ceil(seconds / 60))
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None,
    credentials: dict | None = None,
) -> HttpResponse:
    """django-axes' answer to a sign-in it refused (``AXES_LOCKOUT_CALLABLE``): 429, with the
    wait in Retry-After. A further try restarts the cool-off, so the whole of it is left."""
    seconds = math.ceil(settings.AXES_COOLOFF_TIME.total_seconds())
    response = render(
        request, "accounts/locked_out.html",
        {"message": ERR_LOCKED_OUT.format(wait=lockout_wait(seconds))}, status=429,
    )
    response["Retry-After"] = str(seconds)
    return response

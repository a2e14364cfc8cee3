"""Login and logout (Django's auth views with quotaweb's templates and messages), the sign-in
audit for admins, and a directory user's personal API token."""

from __future__ import annotations

import math

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from quotaweb.accounts import selectors, services
from quotaweb.accounts.decorators import ERR_INACTIVE, admin_required
from quotaweb.accounts.forms import LoginForm
from quotaweb.accounts.identity import directory_identity_current
from quotaweb.accounts.models import AuthEvent
from quotaweb.accounts.roles import user_role

MSG_LOGGED_OUT = "You are logged out."
MSG_TOKEN_REVOKED = "Your API token is revoked: scripts using it are refused from now on."
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


@admin_required
@require_safe
def audit(request: HttpRequest) -> HttpResponse:
    """The sign-in audit for admins: sign-ins and through what, refusals, role changes seen."""
    kind = request.GET.get("kind", "")
    if kind and kind not in dict(AuthEvent.KINDS):
        kind = ""
    return render(request, "accounts/audit.html", {
        "events": selectors.auth_events_recent(kind=kind), "kind": kind, "kinds": AuthEvent.KINDS,
        "shown": selectors.AUDIT_SHOWN,
    })


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def personal_token(request: HttpRequest) -> HttpResponse:
    """A directory user's own API token: made (again) or revoked here, shown once. A token is
    one's own credential, not the configuration, so members may make theirs too."""
    if user_role(request.user) is None:
        raise PermissionDenied(ERR_INACTIVE.format(username=request.user.get_username()))
    context: dict[str, object] = {"local": directory_identity_current(request.user) is None}
    status = 200
    if request.method == "POST":
        try:
            if request.POST.get("action") == "revoke":
                services.personal_token_revoke(user=request.user)
                messages.success(request, MSG_TOKEN_REVOKED)
                return redirect("accounts:token")
            context["key"] = services.personal_token_create(user=request.user)
        except services.PersonalTokenRefused as refused:
            context["error"] = str(refused)
            status = 400
    context["has_token"] = selectors.personal_token_exists(user=request.user)
    response = render(request, "accounts/token.html", context, status=status)
    # The key is on the page once: no cache may keep it.
    response["Cache-Control"] = "no-store"
    return response

"""Login and logout (Django's auth views with quotaweb's templates and messages), sign-in
through the site's OpenID Connect provider (``quotaweb.accounts.oidc``), the sign-in audit for
admins, and a directory user's personal API token."""

from __future__ import annotations

import math

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_safe

from quotaweb.accounts import selectors, services
from quotaweb.accounts.decorators import ERR_INACTIVE, admin_required
from quotaweb.accounts.forms import LoginForm
from quotaweb.accounts.identity import directory_identity_current
from quotaweb.accounts.models import AuthEvent
from quotaweb.accounts.oidc import (
    OidcFailure,
    OidcUnavailable,
    oidc_authorization_redirect,
    oidc_enabled,
    oidc_logout_url,
    oidc_person,
    oidc_refusal_record,
    oidc_user_sign_in,
)
from quotaweb.accounts.roles import user_role

MSG_LOGGED_OUT = "You are logged out."
MSG_TOKEN_REVOKED = "Your API token is revoked: scripts using it are refused from now on."
ERR_LOCKED_OUT = (
    "Too many failed logins for this account or from this address: logging in is paused, even "
    "with the right password. Try again in {wait}; each further try starts the wait "
    "again. A quota admin can lift the pause sooner (docs/deployment.md, \"Sign-in throttling\")."
)


MSG_LOGGED_OUT_PROVIDER = "You are logged out of {product}, and of {provider} too."
# Session keys: where to go after the provider's sign-in, and the ID token its logout needs.
SESSION_NEXT = "quotaweb_oidc_next"
SESSION_ID_TOKEN = "quotaweb_oidc_id_token"
# Seconds a person is asked to wait when the provider is away.
PROVIDER_RETRY_AFTER = 60
BREAK_GLASS_PARAMETER = "break-glass"
# What the session of a provider's sign-in is checked against on each request (the user, active).
SESSION_BACKEND = "quotaweb.accounts.backends.LocalPasswordBackend"


def password_form_shown(request: HttpRequest) -> bool:
    """The password form is for local accounts (unless turned off), directory passwords (LDAP),
    and the break-glass path."""
    return bool(
        settings.QUOTAWEB_LOCAL_LOGIN
        or settings.QUOTAWEB_LDAP
        or BREAK_GLASS_PARAMETER in request.GET
        or BREAK_GLASS_PARAMETER in request.POST
    )


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    authentication_form = LoginForm

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(
            oidc_enabled=oidc_enabled(),
            oidc_name=settings.QUOTAWEB_OIDC_NAME,
            password_form_shown=password_form_shown(self.request),
            break_glass=BREAK_GLASS_PARAMETER in self.request.GET
            or BREAK_GLASS_PARAMETER in self.request.POST,
        )
        return context


class LogoutView(auth_views.LogoutView):
    # Django's LogoutView accepts POST only: a link or an image tag cannot log anyone out.

    def post(self, request, *args, **kwargs):
        id_token = request.session.get(SESSION_ID_TOKEN)
        response = super().post(request, *args, **kwargs)
        # Added after the session was flushed, so the message survives into the next page.
        if id_token:
            provider_logout = oidc_logout_url(
                id_token=id_token,
                post_logout_redirect_uri=request.build_absolute_uri(reverse("accounts:login")),
            )
            if provider_logout:
                messages.info(request, MSG_LOGGED_OUT_PROVIDER.format(
                    product=settings.QUOTAWEB_PRODUCT_NAME, provider=settings.QUOTAWEB_OIDC_NAME,
                ))
                return HttpResponseRedirect(provider_logout)
        messages.info(request, MSG_LOGGED_OUT)
        return response


def _client_address(request: HttpRequest) -> str | None:
    return request.META.get("REMOTE_ADDR") or None


def _login_page_with(request: HttpRequest, failure: OidcFailure) -> HttpResponse:
    """The login page with the reason the provider's sign-in did not happen: 503 with
    Retry-After when the provider is away, 400 for an answer that was refused."""
    response = LoginView.as_view(extra_context={"oidc_error": failure.message})(request)
    response.render()
    if isinstance(failure, OidcUnavailable):
        response.status_code = 503
        response["Retry-After"] = str(PROVIDER_RETRY_AFTER)
    else:
        response.status_code = 400
    return response


@require_GET
def oidc_login(request: HttpRequest) -> HttpResponse:
    """Start a sign-in at the provider: the login page's "Sign in with ..." button."""
    next_url = request.GET.get("next", "")
    if next_url and url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        request.session[SESSION_NEXT] = next_url
    else:
        request.session.pop(SESSION_NEXT, None)
    try:
        return oidc_authorization_redirect(
            request=request,
            redirect_uri=request.build_absolute_uri(reverse("accounts:oidc_callback")),
        )
    except OidcFailure as failure:
        oidc_refusal_record(failure=failure, address=_client_address(request))
        return _login_page_with(request, failure)


@require_GET
def oidc_callback(request: HttpRequest) -> HttpResponse:
    """The provider's answer (the redirect URI): check it, then sign the person in."""
    address = _client_address(request)
    try:
        person = oidc_person(request=request)
    except OidcFailure as failure:
        oidc_refusal_record(failure=failure, address=address)
        return _login_page_with(request, failure)
    try:
        user = oidc_user_sign_in(person=person, address=address)
    except OidcFailure as failure:
        return _login_page_with(request, failure)
    next_url = request.session.pop(SESSION_NEXT, None) or reverse(settings.LOGIN_REDIRECT_URL)
    login(request, user, backend=SESSION_BACKEND)
    # The groups, so the role, are those of this sign-in until the session ends.
    request.session.set_expiry(settings.QUOTAWEB_OIDC_SESSION_SECONDS)
    request.session[SESSION_ID_TOKEN] = person.id_token
    return HttpResponseRedirect(next_url)


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

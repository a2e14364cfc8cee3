"""Sign-in with the site's LDAP directory (django-auth-ldap), and reading a person's groups again.

The backend comes after Django's own in ``AUTHENTICATION_BACKENDS``: a local account (the
break-glass admin) signs in with its password even while the directory is down. A directory
person is found (search-then-bind, or a DN template to bind directly), bound with their password,
and handed to ``directory_user_sync`` with their groups; a local account of the same name is never
taken over.

Between sign-ins, ``ldap_identity_refresh`` reads the person's entry and groups again once they
are older than ``QUOTAWEB_LDAP_CACHE_SECONDS`` (``quotaweb.accounts.identity``): an entry that is
gone takes their role away, a changed group changes it. A directory that does not answer is
``DirectoryUnavailable`` (503 with Retry-After), never "wrong password" or "no such person".
"""

from __future__ import annotations

from typing import Any

import ldap
from django.conf import settings
from django_auth_ldap.backend import LDAPBackend, _LDAPUser, ldap_error

from quotaweb.accounts.directory import (
    ERR_LOCAL_ACCOUNT,
    DirectoryUserRefused,
    directory_user_gone,
    directory_user_sync,
    is_local_account,
)
from quotaweb.accounts.identity import (
    ERR_UNAVAILABLE,
    DirectoryUnavailable,
    Refresher,
    directory_refresher_register,
)
from quotaweb.accounts.models import AuthEvent, DirectoryIdentity
from quotaweb.accounts.services import auth_event_record

SOURCE = DirectoryIdentity.SOURCE_LDAP


def _ldap_reason(exception: BaseException) -> str:
    """One line from python-ldap's error (its ``desc``), never the bind password."""
    info = exception.args[0] if exception.args and isinstance(exception.args[0], dict) else {}
    return str(info.get("desc") or type(exception).__name__)


def _unavailable(exception: BaseException) -> DirectoryUnavailable:
    reason = _ldap_reason(exception)
    return DirectoryUnavailable(ERR_UNAVAILABLE.format(source="LDAP", reason=reason))


def _reported(sender: Any, context: str, exception: BaseException, **kwargs: Any) -> None:
    # django-auth-ldap reports a failed search or bind and goes on as if the person did not
    # exist; raised here, it stops the sign-in or the refresh instead.
    raise _unavailable(exception)


def _full_name(user: Any) -> str:
    return f"{user.first_name} {user.last_name}".strip()


class QuotawebLDAPBackend(LDAPBackend):
    def get_or_build_user(self, username: str, ldap_user: Any) -> tuple[Any, bool]:
        user, built = super().get_or_build_user(username, ldap_user)
        # Refused before django-auth-ldap writes the directory's attributes over a local account.
        if not built and is_local_account(user):
            auth_event_record(
                kind=AuthEvent.KIND_DENIED, username=user.get_username(), source=SOURCE,
                detail=ERR_LOCAL_ACCOUNT.format(username=user.get_username()),
            )
            raise ldap_user.AuthenticationFailed("a local account has this name")
        return user, built

    def authenticate(
        self, request: Any, username: str | None = None, password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        try:
            user = super().authenticate(request, username=username, password=password, **kwargs)
        except ldap.LDAPError as error:
            raise _unavailable(error) from None
        if user is None:
            return None
        try:
            return directory_user_sync(
                username=user.get_username(), groups=_groups_of(user.ldap_user), source=SOURCE,
                email=user.email, full_name=_full_name(user),
            )
        except DirectoryUserRefused as refused:
            auth_event_record(
                kind=AuthEvent.KIND_DENIED, username=user.get_username(), source=SOURCE,
                detail=str(refused),
            )
            return None


ldap_error.connect(_reported, sender=QuotawebLDAPBackend, dispatch_uid="quotaweb-ldap-error")


def _groups_of(ldap_user: Any) -> list[str]:
    if not settings.QUOTAWEB_LDAP.get("group_base"):
        return []
    try:
        return sorted(ldap_user.group_names)
    except ldap.LDAPError as error:
        raise _unavailable(error) from None


def ldap_identity_refresh(identity: DirectoryIdentity) -> None:
    """Read the person's entry and groups again (with the bind DN, or anonymously)."""
    username = identity.user.get_username()
    ldap_user = _LDAPUser(QuotawebLDAPBackend(), username=username)
    try:
        found = ldap_user.attrs is not None
    except ldap.LDAPError as error:
        raise _unavailable(error) from None
    if not found:
        directory_user_gone(identity=identity)
        return
    directory_user_sync(
        username=username, groups=_groups_of(ldap_user), source=SOURCE,
        email=identity.user.email, full_name=_full_name(identity.user),
    )


def _max_age() -> float | None:
    # Without LDAP configured (turned off since), the stored groups stand.
    seconds = settings.QUOTAWEB_LDAP.get("cache_seconds")
    return None if seconds is None else float(seconds)


def ldap_refresher_register() -> None:
    directory_refresher_register(
        source=SOURCE, refresher=Refresher(max_age=_max_age, refresh=ldap_identity_refresh),
    )

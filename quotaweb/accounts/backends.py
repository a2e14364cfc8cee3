"""Password sign-in for local accounts, and when it is refused.

Django's ModelBackend, except that with ``QUOTAWEB_LOCAL_LOGIN=0`` only the break-glass accounts
(``QUOTAWEB_BREAK_GLASS_USERS``) may sign in with a password. The refusal lives here, not only in
the login form, so every password sign-in is covered: the Django admin's login page too.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.backends import ModelBackend


def local_password_allowed(*, username: str | None) -> bool:
    """Whether a local account may sign in with its password on this site."""
    if settings.QUOTAWEB_LOCAL_LOGIN:
        return True
    return username is not None and username in settings.QUOTAWEB_BREAK_GLASS_USERS


class LocalPasswordBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if not local_password_allowed(username=username):
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)

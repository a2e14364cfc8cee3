"""Access control for views: ``viewer_required``, ``admin_required`` and ``member_allowed``.

- Anonymous visitors are redirected to the login page (and come back after logging in).
- ``viewer_required``: any active user may read (GET, HEAD, OPTIONS); every other method is a
  write and needs a quota admin. So a page that shows a form to admins and the same values
  read-only to viewers needs only this decorator, and a viewer's forged POST (even with a valid
  CSRF token: CSRF proves where a request came from, not who may make it) gets 403.
- ``admin_required``: every method needs a quota admin, for pages that exist only to edit.
- ``member_allowed``: like ``viewer_required``, and members (directory users who read only their
  own usage) may read too: for the pages that show a person their own usage and nothing else.
  Every other page refuses a member.

Refusals raise ``PermissionDenied`` with a message from this module; ``templates/403.html``
shows it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

from quotaweb.accounts.roles import (
    QUOTA_ADMINS_GROUP,
    is_member,
    is_quota_admin,
    is_signed_in,
    is_viewer,
)

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

ERR_INACTIVE = "The account {username} is disabled. Ask a quota admin to enable it."
ERR_ADMIN_ONLY = (
    "This page is for quota admins. You are logged in as {username}, a viewer: you can read "
    "every page, but changing the configuration needs a staff account or membership in the "
    f"{QUOTA_ADMINS_GROUP} group."
)
ERR_MEMBER_PAGE = (
    "You are signed in as {username}, a member: you can read your own usage and your groups' "
    "usage (My usage), not this page. A quota admin can give you the viewer role through a "
    "directory group."
)
ERR_WRITE_NEEDS_ADMIN = (
    "Only quota admins can make changes. You are logged in as {username}, a viewer, so this "
    "{method} request was refused and nothing was changed. Admins are staff accounts and "
    f"members of the {QUOTA_ADMINS_GROUP} group."
)


def access_check(
    request: HttpRequest, *, admin_only: bool, members: bool = False
) -> HttpResponse | None:
    """None when the request may proceed, a login redirect for anonymous visitors; raises
    ``PermissionDenied`` for a logged-in user without the role the request needs."""
    user = request.user
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    username = user.get_username()
    if is_member(user) and not (members and request.method in READ_METHODS):
        raise PermissionDenied(ERR_MEMBER_PAGE.format(username=username))
    if not is_signed_in(user) or not (is_viewer(user) or is_member(user)):
        raise PermissionDenied(ERR_INACTIVE.format(username=username))
    if is_quota_admin(user):
        return None
    if admin_only:
        raise PermissionDenied(ERR_ADMIN_ONLY.format(username=username))
    if request.method not in READ_METHODS:
        raise PermissionDenied(
            ERR_WRITE_NEEDS_ADMIN.format(username=username, method=request.method)
        )
    return None


def _guard(
    view: Callable[..., Any], *, admin_only: bool, members: bool = False
) -> Callable[..., Any]:
    if iscoroutinefunction(view):

        async def async_wrapper(request, *args, **kwargs):
            # The role check reads the session, the user and their groups: sync ORM work.
            denial = await sync_to_async(access_check)(
                request, admin_only=admin_only, members=members
            )
            if denial is not None:
                return denial
            return await view(request, *args, **kwargs)

        wrapped = wraps(view)(async_wrapper)
        return markcoroutinefunction(wrapped)

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        denial = access_check(request, admin_only=admin_only, members=members)
        if denial is not None:
            return denial
        return view(request, *args, **kwargs)

    return wrapper


def viewer_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Reads for every active user; writes (any method but GET, HEAD, OPTIONS) for admins."""
    return _guard(view, admin_only=False)


def admin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Every method for quota admins only."""
    return _guard(view, admin_only=True)


def member_allowed(view: Callable[..., Any]) -> Callable[..., Any]:
    """``viewer_required``, and members may read: the view shows the person their own scope."""
    return _guard(view, admin_only=False, members=True)

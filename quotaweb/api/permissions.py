"""Who may call the API: admins and viewers read, quota admins write (the roles of the pages);
members read only the endpoints that answer for their own scope (a view's ``member_scope``)."""

from __future__ import annotations

from django.conf import settings
from rest_framework.permissions import SAFE_METHODS, BasePermission

from quotaweb.accounts.roles import is_member, is_quota_admin, is_viewer, own_scope

ERR_WRITE_NEEDS_ADMIN = (
    "only quota admins may change anything: {username} is a viewer, so this {method} was "
    "refused and nothing changed"
)


ERR_MEMBER_SCOPE = (
    "{username} is a member: the API answers them only their own usage (user {username}) and "
    "their groups' usage ({groups}), so this was refused and nothing changed"
)


def member_may_read(request, view) -> bool:
    """A member's read of an endpoint whose view names the scopes it reads
    (``member_scope(request, kwargs)``: a list of ``(kind, name)``), all within their own."""
    scopes_of = getattr(view, "member_scope", None)
    scope = own_scope(request.user)
    if scopes_of is None or scope is None or request.method not in SAFE_METHODS:
        return False
    wanted = scopes_of(request, view.kwargs)
    return bool(wanted) and all(scope.allows(kind=kind, name=name) for kind, name in wanted)


class ViewerReadsAdminWrites(BasePermission):
    """GET/HEAD/OPTIONS for admins and viewers, anything else for quota admins only; members read
    their own scope only. An anonymous caller gets 401 (DRF asks the authenticators for a
    challenge), a viewer's write or a member's read of anything else 403."""

    def has_permission(self, request, view) -> bool:
        user = request.user
        if is_member(user):
            if member_may_read(request, view):
                return True
            scope = own_scope(user)
            self.message = ERR_MEMBER_SCOPE.format(
                username=user.get_username(),
                groups=", ".join(scope.groups) if scope and scope.groups else "none",
            )
            return False
        if not is_viewer(user):
            return False
        if request.method in SAFE_METHODS or is_quota_admin(user):
            return True
        self.message = ERR_WRITE_NEEDS_ADMIN.format(
            username=user.get_username(), method=request.method
        )
        return False


class PublicReadOrViewer(ViewerReadsAdminWrites):
    """The YuniKorn-compatible reads: like the rest, but open to anyone when
    ``QUOTAWEB_PUBLIC_READ`` is on (dashboards that only read, as YuniKorn's own UI does)."""

    def has_permission(self, request, view) -> bool:
        if settings.QUOTAWEB_PUBLIC_READ and request.method in SAFE_METHODS:
            return True
        return super().has_permission(request, view)

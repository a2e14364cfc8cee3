"""Who may call the API: any active user reads, quota admins write (the roles of the pages)."""

from __future__ import annotations

from django.conf import settings
from rest_framework.permissions import SAFE_METHODS, BasePermission

from quotaweb.accounts.roles import is_quota_admin, is_viewer

ERR_WRITE_NEEDS_ADMIN = (
    "only quota admins may change anything: {username} is a viewer, so this {method} was "
    "refused and nothing changed"
)


class ViewerReadsAdminWrites(BasePermission):
    """GET/HEAD/OPTIONS for every active user, anything else for quota admins only. An anonymous
    caller gets 401 (DRF asks the authenticators for a challenge), a viewer's write 403."""

    def has_permission(self, request, view) -> bool:
        user = request.user
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

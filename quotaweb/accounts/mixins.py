"""Class-based versions of ``viewer_required`` and ``admin_required`` (same rules, same messages).

List the mixin first, before the Django view class, so its ``dispatch`` runs before the view's.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

from quotaweb.accounts.decorators import access_check


class ViewerRequiredMixin:
    """Reads for every active user; writes for quota admins."""

    admin_only = False

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        denial = access_check(request, admin_only=self.admin_only)
        if denial is not None:
            return denial
        return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]


class AdminRequiredMixin(ViewerRequiredMixin):
    """Every method for quota admins only."""

    admin_only = True

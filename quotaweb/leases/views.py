"""The admins' page of who owns what (docs/deployment.md, "Several serve processes")."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from quotaweb.accounts.decorators import admin_required
from quotaweb.config.selectors import active_version_number
from quotaweb.leases.selectors import owners_read


@admin_required
@require_GET
def owners(request: HttpRequest) -> HttpResponse:
    return render(request, "leases/owners.html", {
        "owners": owners_read(),
        "active_version": active_version_number(),
        "one_process": connection.vendor != "postgresql",
    })

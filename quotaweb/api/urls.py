"""The API's routes: YuniKorn-compatible reads under /ws/v1/, the rest under /api/v1/."""

from django.urls import include, path, re_path

from quotaweb.api.views import docs
from quotaweb.core.views import not_found

urlpatterns = [
    path("api/schema/", docs.SchemaView.as_view(), name="api-schema"),
    path("api/docs/", docs.docs, name="api-docs"),
    path("ws/v1/", include("quotaweb.api.views.yunikorn")),
    path("api/v1/", include("quotaweb.api.views.config")),
    path("api/v1/", include("quotaweb.api.views.allocations")),
    path("api/v1/", include("quotaweb.api.views.elastic")),
    path("api/v1/", include("quotaweb.api.views.quotatrees")),
    # Any other /api/v1/ path, a newline in it too (which the routes' ``.`` does not match): the
    # JSON 404, even with debug on (where Django would answer its HTML page instead).
    re_path(r"^api/v1/[\s\S]+$", not_found),
]

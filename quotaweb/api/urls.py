"""The API's routes: YuniKorn-compatible reads under /ws/v1/, the rest under /api/v1/."""

from django.urls import include, path

from quotaweb.api.views import docs

urlpatterns = [
    path("api/schema/", docs.SchemaView.as_view(), name="api-schema"),
    path("api/docs/", docs.docs, name="api-docs"),
    path("ws/v1/", include("quotaweb.api.views.yunikorn")),
    path("api/v1/", include("quotaweb.api.views.config")),
    path("api/v1/", include("quotaweb.api.views.formats")),
    path("api/v1/", include("quotaweb.api.views.allocations")),
    path("api/v1/", include("quotaweb.api.views.nodes")),
    path("api/v1/", include("quotaweb.api.views.elastic")),
    path("api/v1/", include("quotaweb.api.views.quotatrees")),
    path("api/v1/", include("quotaweb.api.views.owners")),
    path("api/v1/", include("quotaweb.api.views.accounting")),
    path("api/v1/", include("quotaweb.api.views.replay")),
]

"""Other tools' formats in and out of a partition (``api.md`` section "Other formats").

``POST /api/v1/partitions/{p}/import/elasticquota`` takes Koordinator ``ElasticQuota`` objects
as ``kubectl get elasticquota -A -o yaml`` prints them and makes them the queues below the
partition's root, as one version (or, with ``dry_run``, answers what it would change);
``GET .../export/elasticquota`` writes the queues back as ``ElasticQuota`` objects. The reading
and writing are ``quotaweb.config.elasticquota``'s; this only speaks HTTP.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.urls import path, re_path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework.request import Request
from rest_framework.response import Response

from quotaweb.api.parsers import YAML_PARSERS, CappedJsonParser
from quotaweb.api.problems import ApiError
from quotaweb.api.serializers import (
    ConfigPutSerializer,
    ElasticQuotaDryRunSerializer,
    ElasticQuotaImportedSerializer,
)
from quotaweb.api.views.config import (
    _DRY_RUN,
    _IF_MATCH,
    ConfigApiView,
    Precondition,
    _active_model,
    _applied,
    _flag,
    _warned,
    _with_etag,
    document_body,
)
from quotaweb.config import changes, selectors, services
from quotaweb.config.elasticquota import (
    ElasticQuotaImport,
    elasticquota_export,
    elasticquota_read,
)
from quotaweb.config.resource_types import (
    document_resource_type_warnings,
    resource_types_named,
    write_resource_type_warnings,
)


def _named(imported: ElasticQuotaImport, change: Any) -> Any:
    """Run ``change()``; the configuration's problems come back naming their objects too."""
    try:
        return change()
    except services.ConfigRejected as rejected:
        raise services.ConfigRejected(imported.named(rejected.errors)) from None


class ElasticQuotaImportView(ConfigApiView):
    parser_classes = [CappedJsonParser, *YAML_PARSERS]

    @extend_schema(
        request={"application/json": ConfigPutSerializer, "application/yaml": OpenApiTypes.STR},
        parameters=[_DRY_RUN, _IF_MATCH,
                    OpenApiParameter("comment", OpenApiTypes.STR, description="with a YAML body")],
        responses=PolymorphicProxySerializer(
            component_name="ElasticQuotaImportAnswer",
            serializers=[ElasticQuotaImportedSerializer, ElasticQuotaDryRunSerializer],
            resource_type_field_name=None,
        ),
    )
    def post(self, request: Request, partition: str) -> Response:
        text, comment, body_base = document_body(request)
        dry_run = _flag(request, "dry_run")
        precondition = Precondition(request, body_base=body_base)
        imported = elasticquota_read(partition=partition, text=text)
        read = {"groups": imported.groups, "notes": list(imported.notes)}
        if dry_run:
            old, active = _active_model()
            candidate, _ = _named(
                imported, lambda: services.config_candidate(edits=[imported.edit()])
            )
            return Response({
                "dry_run": True, "valid": True, "active_version": active, "details": [],
                "changes": changes.config_changes(old=old, new=candidate),
                "impact": selectors.config_impact(candidate=candidate), **read,
                **_warned(document_resource_type_warnings(active=old, candidate=candidate)),
            })
        version = _named(imported, lambda: precondition.write(
            lambda base: services.config_edit(
                edits=[imported.edit()], author=request.user, comment=comment,
                base_version=base,
            )
        ))
        warnings = write_resource_type_warnings(
            base_version=precondition.base,
            types=resource_types_named(config=selectors.version_model(version)),
        )
        return _with_etag(
            Response(_applied(version, warnings=warnings, **read)), version.number
        )


class ElasticQuotaExportView(ConfigApiView):
    @extend_schema(responses={(200, "application/yaml"): OpenApiResponse(
        OpenApiTypes.OBJECT, description="a kind: List of ElasticQuota objects, as YAML",
    )})
    def get(self, request: Request, partition: str) -> HttpResponse:
        try:
            text = elasticquota_export(partition=partition)
        except services.ConfigRejected as rejected:
            # The configuration is fine; Kubernetes just has no words for part of it.
            raise ApiError(
                status_code=409, code="not_exportable", message=rejected.errors[0]["message"],
                details=rejected.errors,
            ) from None
        response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="elasticquota-{_file_part(partition)}.yaml"'
        )
        return response


def _file_part(name: str) -> str:
    """A partition name as it may stand in a file name (partition names are [A-Za-z0-9_-])."""
    return "".join(char for char in name if char.isalnum() or char in "-_") or "partition"


_ROUTES = [
    ("partitions/<str:partition>/import/elasticquota",
     r"partitions/(?P<partition>[^/]+)/import/elasticquota", ElasticQuotaImportView,
     "api-import-elasticquota"),
    ("partitions/<str:partition>/export/elasticquota",
     r"partitions/(?P<partition>[^/]+)/export/elasticquota", ElasticQuotaExportView,
     "api-export-elasticquota"),
]

urlpatterns = [
    *(path(route, view.as_view(), name=name) for route, _, view, name in _ROUTES),
    *(re_path(rf"^{regex}/?$", view.as_view(schema=None)) for _, regex, view, _ in _ROUTES),
]

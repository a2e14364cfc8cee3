"""YuniKorn-compatible reads under ``/ws/v1/`` (spec ``ugm.md`` section 3, ``api.md``).

The user and group objects come from the engines as they are (they already follow YuniKorn's
field names, omission rules and sort order). The queue tree takes its usage from the engine and
its configured values (max, guaranteed, app cap, properties) from the active configuration
version, so it shows what the configuration says even while an engine is a version behind.

Errors are YuniKorn's ``{"status_code", "message", "description"}`` (``api.errors`` picks the
shape from the path). User and group names reach the views decoded once by the server (so
``%2F`` is ``/``; the routes take ``/`` in a name) and are then query-unescaped once more, as
YuniKorn's handlers do, which is where a malformed escape such as ``%Zt`` is refused.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote_plus

from django.conf import settings
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.permissions import BasePermission
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quotaweb.accounts.roles import is_viewer
from quotaweb.api.errors import ApiError, bad_request, not_found
from quotaweb.api.parsers import AnyTextParser
from quotaweb.api.permissions import PublicReadOrViewer
from quotaweb.api.serializers import (
    GroupUsageSerializer,
    QueueNodeSerializer,
    UserUsageSerializer,
)
from quotaweb.config import selectors
from quotaweb.config.documents import config_document
from quotaweb.config.queue_tree import partition_queues
from quotaweb.config.selectors import active_version, version_model
from quotaweb.config.services import elastic_partitions
from quotaweb.engine.gateway import engines_get
from trackers import validate_config
from trackers.config import normalise_partition_name
from trackers.names import is_group_name, is_user_name

ERR_USER_NOT_FOUND = "User not found"
ERR_GROUP_NOT_FOUND = "Group not found"
ERR_INVALID_USER = "Invalid user name"
ERR_INVALID_GROUP = "Invalid group name"
ERR_MISSING_PARAMETERS = "Missing parameters"
# Go's url.EscapeError text, with the offending escape (at most three characters).
ERR_ESCAPE = 'invalid URL escape "{escape}"'

# A ``%`` not followed by two hex digits.
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


class YunikornJSONRenderer(JSONRenderer):
    # YuniKorn's handlers say ``application/json; charset=UTF-8``.
    charset = "utf-8"


class YamlRenderer(BaseRenderer):
    """A YAML text answer as it is; anything else (an error body) never comes here (see
    ``ConfigView.finalize_response``)."""

    media_type = "text/yaml"
    format = "yaml"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict | None = None) -> bytes:
        return str(data).encode("utf-8")


class ApplicationYamlRenderer(YamlRenderer):
    media_type = "application/yaml"


class XYamlRenderer(YamlRenderer):
    media_type = "application/x-yaml"


class YunikornView(APIView):
    permission_classes = [PublicReadOrViewer]
    renderer_classes = [YunikornJSONRenderer]


def query_unescape(value: str) -> str:
    """Go's ``url.QueryUnescape``: ``%XX`` decoded, ``+`` is a space, a malformed escape a 400."""
    bad = _BAD_ESCAPE.search(value)
    if bad is not None:
        raise bad_request(ERR_ESCAPE.format(escape=value[bad.start():bad.start() + 3]))
    return unquote_plus(value)


def _partition(name: str) -> str:
    # Any case of "default" names the default partition, as in a config file.
    return normalise_partition_name(name)


# -- views -------------------------------------------------------------------------------------

_PARTITION_INFO = inline_serializer("YunikornPartition", many=True, fields={
    "name": serializers.CharField(),
    "state": serializers.CharField(),
    "configVersion": serializers.IntegerField(allow_null=True),
    "totalQueues": serializers.IntegerField(),
    "totalUsers": serializers.IntegerField(),
    "totalGroups": serializers.IntegerField(),
})


class PartitionsView(YunikornView):
    @extend_schema(responses=_PARTITION_INFO)
    def get(self, request: Request) -> Response:
        gateway = engines_get()
        out = []
        for name in gateway.partitions():
            summary = gateway.summary(name)
            out.append({
                "name": name,
                "state": "Active",
                "configVersion": summary["version"],
                "totalQueues": summary["queues"],
                "totalUsers": summary["users"],
                "totalGroups": summary["groups"],
            })
        return Response(out)


class QueuesView(YunikornView):
    @extend_schema(responses=QueueNodeSerializer)
    def get(self, request: Request, partition: str) -> Response:
        return Response(partition_queues(partition=_partition(partition)))


class UsersView(YunikornView):
    @extend_schema(responses=UserUsageSerializer(many=True))
    def get(self, request: Request, partition: str) -> Response:
        return Response(engines_get().users_usage(_partition(partition)))


class UserView(YunikornView):
    @extend_schema(responses=UserUsageSerializer)
    def get(self, request: Request, partition: str, user: str) -> Response:
        name = query_unescape(user)
        if not is_user_name(name):
            raise bad_request(ERR_INVALID_USER)
        found = engines_get().user_usage(_partition(partition), name)
        if found is None:
            raise not_found(ERR_USER_NOT_FOUND)
        return Response(found)


class GroupsView(YunikornView):
    @extend_schema(responses=GroupUsageSerializer(many=True))
    def get(self, request: Request, partition: str) -> Response:
        return Response(engines_get().groups_usage(_partition(partition)))


class GroupView(YunikornView):
    @extend_schema(responses=GroupUsageSerializer)
    def get(self, request: Request, partition: str, group: str) -> Response:
        name = query_unescape(group)
        if not is_group_name(name):
            raise bad_request(ERR_INVALID_GROUP)
        found = engines_get().group_usage(_partition(partition), name)
        if found is None:
            raise not_found(ERR_GROUP_NOT_FOUND)
        return Response(found)


class MissingParameterView(YunikornView):
    """``usage/user/`` and ``usage/group/`` without a name: YuniKorn's 400, not a 404."""

    @extend_schema(exclude=True)
    def get(self, request: Request, partition: str) -> Response:
        raise bad_request(ERR_MISSING_PARAMETERS)


class ConfigView(YunikornView):
    """The active configuration: its YAML as written, or (``Accept: application/json``) the
    parsed document with every default filled in (root explicit, names normalised)."""

    renderer_classes = [YamlRenderer, ApplicationYamlRenderer, XYamlRenderer, YunikornJSONRenderer]

    @extend_schema(responses={(200, "text/yaml"): OpenApiTypes.STR,
                              (200, "application/json"): OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        current = active_version()
        if current is None:
            raise not_found(selectors.ERR_NO_CONFIG)
        if request.accepted_renderer.format == "json":
            return Response(config_document(version_model(current)))
        return Response(current.yaml)

    def finalize_response(self, request: Request, response: Any, *args: Any,
                          **kwargs: Any) -> Any:
        # Errors are JSON whatever was asked for: a YAML answer is only ever the document.
        if isinstance(response, Response) and response.status_code >= 400:
            request.accepted_renderer = YunikornJSONRenderer()
            request.accepted_media_type = YunikornJSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


class ValidateConfPermission(BasePermission):
    """Validation applies nothing, so it is a read in all but method: viewers may call it, and
    anyone when reads are public."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(settings.QUOTAWEB_PUBLIC_READ) or is_viewer(request.user)


class ValidateConfView(YunikornView):
    """The same parse and validation as a real config load; always 200, applies nothing."""

    permission_classes = [ValidateConfPermission]
    parser_classes = [AnyTextParser]

    @extend_schema(
        request={"application/yaml": OpenApiTypes.STR},
        responses=inline_serializer("ValidateConf", fields={
            "allowed": serializers.BooleanField(),
            "reason": serializers.CharField(required=False),
        }),
    )
    def post(self, request: Request) -> Response:
        try:
            text = request.data
        except (ParseError, ApiError) as exc:
            # An unreadable body (too large, not UTF-8) is a document that cannot be loaded.
            return Response({"allowed": False, "reason": str(exc.detail)})
        # No body at all arrives as an empty mapping: an empty document, valid as in YuniKorn.
        errors = validate_config(
            text if isinstance(text, str) else "", elastic=elastic_partitions()
        )
        if errors:
            return Response({"allowed": False, "reason": errors[0]["message"]})
        return Response({"allowed": True})


urlpatterns = [
    path("partitions", PartitionsView.as_view(), name="yunikorn-partitions"),
    path("partition/<str:partition>/queues", QueuesView.as_view(), name="yunikorn-queues"),
    path("partition/<str:partition>/usage/users", UsersView.as_view(), name="yunikorn-users"),
    path("partition/<str:partition>/usage/groups", GroupsView.as_view(), name="yunikorn-groups"),
    path("partition/<str:partition>/usage/user/", MissingParameterView.as_view()),
    path("partition/<str:partition>/usage/group/", MissingParameterView.as_view()),
    # ``path`` takes "/" too: a user name such as "alice/team" arrives decoded from "%2F".
    path("partition/<str:partition>/usage/user/<path:user>", UserView.as_view(),
         name="yunikorn-user"),
    path("partition/<str:partition>/usage/group/<path:group>", GroupView.as_view(),
         name="yunikorn-group"),
    path("config", ConfigView.as_view(), name="yunikorn-config"),
    path("validate-conf", ValidateConfView.as_view(), name="yunikorn-validate-conf"),
]

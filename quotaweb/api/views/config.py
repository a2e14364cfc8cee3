"""The configuration API under ``/api/v1/`` (``api.md`` section "Configuration").

Every write goes through ``quotaweb.config.services``, the path the browser uses: the whole
candidate is validated by ``trackers``, stored as a new version and applied to the engines in one
step, or refused with every error (``details``: the validator's ``{code, path, field, message}``
dicts, the very ones the browser shows on its fields). Nothing here judges a value itself.

Preconditions: ``If-Match: <version>`` (or ``base_version`` in a JSON body) says which version the
change was made from. When another version is active by then the answer is 412 with what changed
since, even when the new content would equal the active one: the client's view of the config is
stale either way. Without a precondition a change is made from the active version; if another
write slips in between, that is a 409 conflict with the same details.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
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
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from quotaweb.api.errors import PreconditionFailed
from quotaweb.api.names import pattern_string
from quotaweb.api.parsers import (
    YAML_MAX_BYTES,
    YAML_PARSERS,
    CappedJsonParser,
    too_large,
)
from quotaweb.api.problems import ApiError, bad_request, not_found
from quotaweb.api.serializers import (
    AppliedSerializer,
    ConfigPutSerializer,
    DryRunSerializer,
    LimitAnswerSerializer,
    LimitCreateSerializer,
    LimitValuesSerializer,
    LimitWrittenSerializer,
    QueueAnswerSerializer,
    QueueCreateSerializer,
    QueueValuesSerializer,
    QueueWrittenSerializer,
    VersionSerializer,
    VersionWithYamlSerializer,
    WriteOptionsSerializer,
    limit_values_and_options,
    queue_values_and_options,
)
from quotaweb.config import changes, edits, selectors, services
from quotaweb.config.configmap import configmap_render, configmap_unwrap
from quotaweb.config.documents import limit_values, queue_values
from quotaweb.config.models import ConfigVersion
from quotaweb.config.resource_types import (
    document_resource_type_warnings,
    queue_resource_types,
    resource_types_named,
    write_resource_type_warnings,
)
from trackers.config import normalise_partition_name
from trackers.config.model import Config, Limit
from trackers.config.model import Queue as QueueModel
from trackers.names import WILDCARD

ERR_IF_MATCH = "If-Match must be a configuration version number, like If-Match: 7; got {value!r}"
ERR_BASE_DISAGREES = (
    "If-Match names version {header} but base_version is {body}; send one of them"
)
ERR_NOTHING_ACTIVE = (
    "If-Match: * asks for the active configuration, and none has been applied yet; nothing was "
    "stored or applied"
)
ERR_AGAINST = "against must be a version number, like ?against=3; got {value!r}"
ERR_FIRST_VERSION = (
    "version {number} is the first version: there is no earlier version to compare with; "
    "name one with ?against="
)
ERR_EMPTY_BODY = "send the configuration as YAML, or as JSON {\"yaml\": \"...\"}"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
ERR_FLAG = "{name} must be 1, true, 0 or false, not {value!r}"


# -- shared -------------------------------------------------------------------------------------


class ConfigApiView(APIView):
    parser_classes = [CappedJsonParser]


def _flag(request: Request, name: str) -> bool:
    """A boolean query parameter as documented: 1/0, true/false, yes/no, on/off; absent is
    false, anything else a 400."""
    raw = request.query_params.get(name)
    if raw is None:
        return False
    value = raw.strip().lower()
    if value not in _TRUE | _FALSE:
        raise bad_request(ERR_FLAG.format(name=name, value=raw))
    return value in _TRUE


def _validated(serializer_class: type, data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _queue_body(serializer_class: type, request: Request) -> tuple[dict, dict]:
    """``(queue values to change, write options)`` of a queue write's JSON body."""
    return queue_values_and_options(_validated(serializer_class, request.data))


def _limit_body(serializer_class: type, request: Request) -> tuple[dict, dict]:
    return limit_values_and_options(_validated(serializer_class, request.data))


def _is_json(request: Request) -> bool:
    return request.content_type.split(";")[0].strip().lower() == CappedJsonParser.media_type


def _version_number(text: str) -> int:
    if not selectors.is_whole_number(text):
        raise not_found(selectors.ERR_NO_VERSION.format(number=text))
    return int(text)


# ``7``, ``"7"``, ``W/"7"`` or ``*`` (the active version), between spaces or tabs, or blank (as
# if absent); the schema documents the same pattern.
_IF_MATCH_PATTERN = r'[ \t]*(\*|(W/)?"?([0-9]+)"?)?[ \t]*'
_IF_MATCH_RE = re.compile(_IF_MATCH_PATTERN)


def _if_match(request: Request) -> int | None:
    """The version named by ``If-Match``, or None when there is none."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    match = _IF_MATCH_RE.fullmatch(raw)
    if match is None:
        raise bad_request(ERR_IF_MATCH.format(value=raw))
    tag, number = match[1], match[3]
    if tag is None:
        return None
    if number is None:
        active = selectors.active_version_number()
        if active is None:
            raise ApiError(status_code=412, code="precondition_failed", message=ERR_NOTHING_ACTIVE)
        return active
    return int(number)


def _precondition_failed(*, base: int | None) -> PreconditionFailed:
    moved = selectors.config_moved(base=base)
    return PreconditionFailed(base=base, active=moved["active"], changes=moved["changes"])


class Precondition:
    """Which version a write starts from, and whether the client named it."""

    def __init__(self, request: Request, *, body_base: int | None = None) -> None:
        header = _if_match(request)
        if header is not None and body_base is not None and header != body_base:
            raise bad_request(ERR_BASE_DISAGREES.format(header=header, body=body_base))
        named = header if header is not None else body_base
        active = selectors.active_version_number()
        if named is not None and named != active:
            raise _precondition_failed(base=named)
        self.named = named is not None
        self.base = active

    def write(self, change: Callable[[int | None], ConfigVersion]) -> ConfigVersion:
        """Run ``change(base_version)``; another version applied meanwhile is 412 (the client
        named its base) or 409 (it did not)."""
        try:
            return change(self.base)
        except services.ConfigConflict as conflict:
            if not self.named:
                raise
            raise PreconditionFailed(
                base=conflict.base_version, active=conflict.active_version,
                changes=selectors.conflict_view(conflict.changes),
            ) from None


def _version_json(version: ConfigVersion) -> dict[str, Any]:
    return dict(VersionSerializer(version).data)


def _applied(version: ConfigVersion, *, warnings: Sequence[str] = (), **more: Any) -> dict:
    """A write's answer: the version now active, who is above a limit of it right now, and
    ``warnings`` when there are any."""
    impact = selectors.config_impact(candidate=selectors.version_model(version))
    return {**_version_json(version), "impact": impact, **more, **_warned(warnings)}


def _warned(warnings: Sequence[str]) -> dict[str, Any]:
    """``warnings`` in an answer only when there is something to say."""
    return {"warnings": list(warnings)} if warnings else {}


def _active_model() -> tuple[Config, int | None]:
    current = selectors.active_version()
    if current is None:
        return Config(), None
    return selectors.version_model(current), current.number


def _with_etag(response: Response, version: int | None) -> Response:
    if version is not None:
        response["ETag"] = f'"{version}"'
    return response


# -- the whole document -------------------------------------------------------------------------

_DRY_RUN = OpenApiParameter(
    "dry_run", OpenApiTypes.BOOL,
    description="answer as the real write would (400 for an invalid document, 412 for a stale "
    "base version), with the changes and impact instead of a new version; store nothing",
)
_IF_MATCH = OpenApiParameter(
    "If-Match", pattern_string(f"^{_IF_MATCH_PATTERN}$"),
    location=OpenApiParameter.HEADER,
    description="the version this change was made from; 412 when it is no longer active",
)


def _dry_run(*, yaml_text: str, warnings: Sequence[str]) -> dict[str, Any]:
    """What the real PUT would answer, minus storing: an invalid document raises the very
    ``ConfigRejected`` the real write raises (400 with the same details), a valid one answers
    200 with what would change, who would be above a limit and the same warnings."""
    old, active = _active_model()
    candidate = services.config_validate(yaml_text=yaml_text)
    return {
        "dry_run": True, "valid": True, "active_version": active, "details": [],
        "changes": changes.config_changes(old=old, new=candidate),
        "impact": selectors.config_impact(candidate=candidate),
        **_warned([*warnings, *document_resource_type_warnings(active=old, candidate=candidate)]),
    }


def document_body(request: Request) -> tuple[str, str, int | None]:
    """``(yaml_text, comment, base_version)`` of a body that is a YAML document itself (the
    comment then in ``?comment=``) or JSON ``{"yaml", "comment", "base_version"}``."""
    data = request.data
    if not _is_json(request):
        if not isinstance(data, str):
            # No body at all (the parsers are not even asked then).
            raise bad_request(ERR_EMPTY_BODY)
        # A YAML body has no room for options: the comment comes in the query.
        params = request.query_params
        query = _validated(WriteOptionsSerializer, {
            key: params[key] for key in ("comment",) if key in params
        })
        yaml_text, comment, body_base = data, query.get("comment", ""), None
    else:
        body = _validated(ConfigPutSerializer, data)
        yaml_text, comment = body["yaml"], body.get("comment", "")
        body_base = body.get("base_version")
    if len(yaml_text.encode("utf-8", "surrogatepass")) > YAML_MAX_BYTES:
        raise too_large(YAML_MAX_BYTES)
    return yaml_text, comment, body_base


FORMAT_JSON = "json"
FORMAT_CONFIGMAP = "configmap"
ERR_FORMAT = "format must be json or configmap, not {value!r}"
_FORMAT = OpenApiParameter(
    "format", OpenApiTypes.STR, enum=[FORMAT_JSON, FORMAT_CONFIGMAP],
    description="json (the default): the version with its YAML; configmap: the YAML wrapped in "
    "YuniKorn's yunikorn-configs ConfigMap (application/yaml), comments kept",
)


class _NoFormatOverride:
    """DRF's settings, less its ``?format=`` renderer switch: here ``format`` is ours."""

    URL_FORMAT_OVERRIDE = None

    def __getattr__(self, name: str) -> Any:
        return getattr(api_settings, name)


class FormatIsOurs(DefaultContentNegotiation):
    settings = _NoFormatOverride()


def configmap_response(yaml_text: str, *, filename: str) -> HttpResponse:
    response = HttpResponse(
        configmap_render(yaml_text=yaml_text), content_type="application/yaml; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class ConfigView(ConfigApiView):
    parser_classes = [CappedJsonParser, *YAML_PARSERS]
    content_negotiation_class = FormatIsOurs

    @extend_schema(
        parameters=[_FORMAT],
        responses={(200, "application/json"): VersionWithYamlSerializer,
                   (200, "application/yaml"): OpenApiResponse(
                       OpenApiTypes.OBJECT,
                       description="with format=configmap: the ConfigMap, as YAML",
                   )},
    )
    def get(self, request: Request) -> Response | HttpResponse:
        wanted = request.query_params.get("format", FORMAT_JSON)
        if wanted not in (FORMAT_JSON, FORMAT_CONFIGMAP):
            raise bad_request(ERR_FORMAT.format(value=wanted))
        current = selectors.active_version()
        if current is None:
            raise not_found(selectors.ERR_NO_CONFIG)
        if wanted == FORMAT_CONFIGMAP:
            response = configmap_response(
                current.yaml, filename=f"yunikorn-configs-v{current.number}.yaml"
            )
            response["ETag"] = f'"{current.number}"'
            return response
        return _with_etag(Response(VersionWithYamlSerializer(current).data), current.number)

    @extend_schema(
        request={"application/json": ConfigPutSerializer, "application/yaml": OpenApiTypes.STR},
        parameters=[_DRY_RUN, _IF_MATCH,
                    OpenApiParameter("comment", OpenApiTypes.STR, description="with a YAML body")],
        responses=PolymorphicProxySerializer(
            component_name="ConfigPutAnswer", serializers=[AppliedSerializer, DryRunSerializer],
            resource_type_field_name=None,
        ),
    )
    def put(self, request: Request) -> Response:
        yaml_text, comment, body_base = document_body(request)
        dry_run = _flag(request, "dry_run")
        precondition = Precondition(request, body_base=body_base)
        # A YuniKorn ConfigMap gives its queues.yaml; its other keys are named back as ignored.
        unwrapped = configmap_unwrap(text=yaml_text)
        yaml_text = unwrapped.yaml_text
        if dry_run:
            return Response(_dry_run(yaml_text=yaml_text, warnings=unwrapped.warnings))
        version = precondition.write(lambda base: services.config_apply(
            yaml_text=yaml_text, author=request.user, comment=comment, base_version=base,
        ))
        # The stored version's model is the candidate the apply parsed (kept by content).
        types = resource_types_named(config=selectors.version_model(version))
        warnings = write_resource_type_warnings(base_version=precondition.base, types=types)
        answer = _applied(version, warnings=[*unwrapped.warnings, *warnings])
        return _with_etag(Response(answer), version.number)


# -- versions -------------------------------------------------------------------------------------


ERR_PAGE_VALUE = "{name} must be a whole number from 1 to {high}, not {value!r}"


class VersionPages(PageNumberPagination):
    """Pages of versions; ``page`` and ``page_size`` are whole numbers or a 400 (DRF's own
    pagination would quietly fall back to the default size); a page past the last is 404."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
    max_page = 10**9

    def _checked(self, request: Request, name: str, high: int) -> None:
        raw = request.query_params.get(name)
        if raw is not None and not (selectors.is_whole_number(raw) and 1 <= int(raw) <= high):
            raise bad_request(ERR_PAGE_VALUE.format(name=name, high=high, value=raw))

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        self._checked(request, self.page_query_param, self.max_page)
        self._checked(request, self.page_size_query_param, self.max_page_size)
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            {"name": self.page_query_param, "required": False, "in": "query",
             "description": "page number, from 1; past the last page: 404",
             "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page}},
            {"name": self.page_size_query_param, "required": False, "in": "query",
             "description": f"versions per page, 1 to {self.max_page_size} "
                            f"(default {self.page_size})",
             "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page_size}},
        ]


class VersionsView(ConfigApiView):
    pagination_class = VersionPages

    @extend_schema(responses=VersionSerializer(many=True))
    def get(self, request: Request) -> Response:
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(selectors.versions_list().defer("yaml"), request, self)
        return paginator.get_paginated_response(VersionSerializer(page, many=True).data)


def _version(number: str) -> ConfigVersion:
    wanted = _version_number(number)
    try:
        return selectors.version_get(number=wanted)
    except ConfigVersion.DoesNotExist:
        raise not_found(selectors.ERR_NO_VERSION.format(number=wanted)) from None


class VersionView(ConfigApiView):
    @extend_schema(responses=VersionWithYamlSerializer)
    def get(self, request: Request, number: str) -> Response:
        found = _version(number)
        return Response({
            **VersionWithYamlSerializer(found).data,
            "active": found.number == selectors.active_version_number(),
        })


class VersionDiffView(ConfigApiView):
    @extend_schema(
        parameters=[OpenApiParameter("against", OpenApiTypes.INT,
                                     description="the older version; default the one before")],
        responses=OpenApiResponse(OpenApiTypes.OBJECT,
                                  description="version, against, unified, changes"),
    )
    def get(self, request: Request, number: str) -> Response:
        new = _version(number)
        raw = request.query_params.get("against", "").strip()
        if not raw:
            if new.number <= 1:
                raise bad_request(ERR_FIRST_VERSION.format(number=new.number))
            raw = str(new.number - 1)
        if not selectors.is_whole_number(raw):
            raise bad_request(ERR_AGAINST.format(value=raw))
        old = _version(raw)
        diff = changes.config_diff(
            old=old.yaml, new=new.yaml, old_label=f"version {old.number}",
            new_label=f"version {new.number}",
        )
        return Response({
            "version": new.number, "against": old.number, "unified": diff.unified,
            "changes": diff.changes,
        })


class RollbackView(ConfigApiView):
    @extend_schema(request=WriteOptionsSerializer, parameters=[_IF_MATCH],
                   responses=AppliedSerializer)
    def post(self, request: Request, number: str) -> Response:
        body = _validated(WriteOptionsSerializer, request.data)
        wanted = _version(number).number
        precondition = Precondition(request, body_base=body.get("base_version"))
        version = precondition.write(lambda base: services.config_rollback(
            version=wanted, author=request.user, comment=body.get("comment", ""),
            base_version=base,
        ))
        return _with_etag(Response(_applied(version)), version.number)


# -- queues and their limit entries ---------------------------------------------------------------


def _limit_json(limit: Limit, index: int) -> dict[str, Any]:
    return {"index": index, **limit_values(limit)}


def _queue_json(partition: str, queue: QueueModel) -> dict[str, Any]:
    return {
        "partition": partition,
        "path": queue.path,
        **queue_values(queue),
        "children": [child.path for child in queue.children],
        "limits": [_limit_json(limit, index) for index, limit in enumerate(queue.limits)],
    }


def _queue(config: Config, partition: str, queue_path: str) -> tuple[str, QueueModel]:
    """``(partition name, queue)`` of ``config``; 404 (``ConfigNotFound``) when missing."""
    detail = selectors.queue_detail(config=config, partition=partition, queue_path=queue_path)
    return detail["partition"], detail["queue"]


def _limit_index(queue: QueueModel, raw: str) -> int:
    if not selectors.is_whole_number(raw) or int(raw) >= len(queue.limits):
        raise not_found(edits.ERR_LIMIT_NOT_FOUND.format(path=queue.path, index=raw))
    return int(raw)


def _default_position(queue: QueueModel, values: Mapping[str, Any]) -> int | None:
    """Where a new entry goes when the client does not say: before the first wildcard entry
    (a wildcard must come after the named entries), as the browser's form proposes."""
    if WILDCARD in values.get("users", ()) or WILDCARD in values.get("groups", ()):
        return None
    return next(
        (index for index, limit in enumerate(queue.limits)
         if WILDCARD in limit.users or WILDCARD in limit.groups),
        None,
    )


def _write_options(options: Mapping[str, Any]) -> tuple[str, int | None]:
    return options.get("comment", ""), options.get("base_version")


def _written(
    version: ConfigVersion, precondition: Precondition, *, types: Iterable[str],
    status: int = 200, **more: Any,
) -> Response:
    """A queue or limit write's answer, warning about the resource types it wrote that the
    version it started from and the trackers do not know, as the queue form does."""
    warnings = write_resource_type_warnings(base_version=precondition.base, types=types)
    return _with_etag(
        Response(_applied(version, warnings=warnings, **more), status=status), version.number
    )


class QueuesView(ConfigApiView):
    @extend_schema(operation_id="api_v1_partitions_queues_list",
                   responses=QueueAnswerSerializer(many=True))
    def get(self, request: Request, partition: str) -> Response:
        config, version = _active_model()
        found = config.partition(normalise_partition_name(partition))
        if found is None:
            raise not_found(edits.ERR_PARTITION_NOT_FOUND.format(partition=partition))
        queues = [_queue_json(found.name, queue) for queue in found.queues()]
        return _with_etag(Response(queues), version)

    @extend_schema(request=QueueCreateSerializer, parameters=[_IF_MATCH],
                   responses={201: QueueWrittenSerializer})
    def post(self, request: Request, partition: str) -> Response:
        values, options = _queue_body(QueueCreateSerializer, request)
        comment, body_base = _write_options(options)
        parent = options.get("parent") or "root"
        precondition = Precondition(request, body_base=body_base)
        version = precondition.write(lambda base: services.queue_create(
            partition=partition, parent_path=parent, values=values,
            position=options.get("position"), author=request.user, comment=comment,
            base_version=base,
        ))
        name, queue = _queue(
            selectors.version_model(version), partition, f"{parent}.{values['name']}"
        )
        return _written(
            version, precondition, types=queue_resource_types(queue), status=201,
            queue=_queue_json(name, queue),
        )


class QueueView(ConfigApiView):
    @extend_schema(responses=QueueAnswerSerializer)
    def get(self, request: Request, partition: str, queue_path: str) -> Response:
        config, version = _active_model()
        name, queue = _queue(config, partition, queue_path)
        return _with_etag(Response(_queue_json(name, queue)), version)

    @extend_schema(request=QueueValuesSerializer, parameters=[_IF_MATCH],
                   responses=QueueWrittenSerializer)
    def patch(self, request: Request, partition: str, queue_path: str) -> Response:
        values, options = _queue_body(QueueValuesSerializer, request)
        comment, body_base = _write_options(options)
        precondition = Precondition(request, body_base=body_base)
        version = precondition.write(lambda base: services.queue_update(
            partition=partition, queue_path=queue_path, values=values, author=request.user,
            comment=comment, base_version=base,
        ))
        # A rename moves the queue: answer it at its new path.
        new_path = queue_path
        if "name" in values:
            new_path = f"{queue_path.rpartition('.')[0]}.{values['name']}".lstrip(".")
        name, queue = _queue(selectors.version_model(version), partition, new_path)
        return _written(
            version, precondition, types=queue_resource_types(queue),
            queue=_queue_json(name, queue),
        )

    # A delete answers the new version (200), not drf-spectacular's default 204 for DELETE.
    @extend_schema(request=WriteOptionsSerializer, parameters=[_IF_MATCH],
                   responses={200: AppliedSerializer})
    def delete(self, request: Request, partition: str, queue_path: str) -> Response:
        comment, body_base = _write_options(_validated(WriteOptionsSerializer, request.data))
        precondition = Precondition(request, body_base=body_base)
        version = precondition.write(lambda base: services.queue_delete(
            partition=partition, queue_path=queue_path, author=request.user, comment=comment,
            base_version=base,
        ))
        return _with_etag(Response(_applied(version)), version.number)


class LimitsView(ConfigApiView):
    @extend_schema(operation_id="api_v1_partitions_queues_limits_list",
                   responses=LimitAnswerSerializer(many=True))
    def get(self, request: Request, partition: str, queue_path: str) -> Response:
        config, version = _active_model()
        _, queue = _queue(config, partition, queue_path)
        limits = [_limit_json(limit, index) for index, limit in enumerate(queue.limits)]
        return _with_etag(Response(limits), version)

    @extend_schema(request=LimitCreateSerializer, parameters=[_IF_MATCH],
                   responses={201: LimitWrittenSerializer})
    def post(self, request: Request, partition: str, queue_path: str) -> Response:
        values, options = _limit_body(LimitCreateSerializer, request)
        comment, body_base = _write_options(options)
        precondition = Precondition(request, body_base=body_base)
        config, _ = _active_model()
        _, queue = _queue(config, partition, queue_path)
        position = options.get("position")
        if position is None:
            position = _default_position(queue, values)
        version = precondition.write(lambda base: services.limit_create(
            partition=partition, queue_path=queue_path, values=values, position=position,
            author=request.user, comment=comment, base_version=base,
        ))
        _, queue = _queue(selectors.version_model(version), partition, queue_path)
        index = len(queue.limits) - 1 if position is None else min(position, len(queue.limits) - 1)
        limit = queue.limits[index]
        return _written(
            version, precondition, types=limit.max_resources, status=201,
            limit=_limit_json(limit, index),
        )


class LimitView(ConfigApiView):
    @extend_schema(responses=LimitAnswerSerializer)
    def get(self, request: Request, partition: str, queue_path: str, index: str) -> Response:
        config, version = _active_model()
        _, queue = _queue(config, partition, queue_path)
        at = _limit_index(queue, index)
        return _with_etag(Response(_limit_json(queue.limits[at], at)), version)

    @extend_schema(request=LimitValuesSerializer, parameters=[_IF_MATCH],
                   responses=LimitWrittenSerializer)
    def patch(self, request: Request, partition: str, queue_path: str, index: str) -> Response:
        values, options = _limit_body(LimitValuesSerializer, request)
        comment, body_base = _write_options(options)
        precondition = Precondition(request, body_base=body_base)
        at = _limit_index(_queue(_active_model()[0], partition, queue_path)[1], index)
        version = precondition.write(lambda base: services.limit_update(
            partition=partition, queue_path=queue_path, index=at, values=values,
            author=request.user, comment=comment, base_version=base,
        ))
        _, queue = _queue(selectors.version_model(version), partition, queue_path)
        limit = queue.limits[at]
        return _written(
            version, precondition, types=limit.max_resources, limit=_limit_json(limit, at)
        )

    # A delete answers the new version (200), not drf-spectacular's default 204 for DELETE.
    @extend_schema(request=WriteOptionsSerializer, parameters=[_IF_MATCH],
                   responses={200: AppliedSerializer})
    def delete(self, request: Request, partition: str, queue_path: str, index: str) -> Response:
        comment, body_base = _write_options(_validated(WriteOptionsSerializer, request.data))
        precondition = Precondition(request, body_base=body_base)
        at = _limit_index(_queue(_active_model()[0], partition, queue_path)[1], index)
        version = precondition.write(lambda base: services.limit_delete(
            partition=partition, queue_path=queue_path, index=at, author=request.user,
            comment=comment, base_version=base,
        ))
        return _with_etag(Response(_applied(version)), version.number)


# The contract's spelling first (what the schema shows), then the same views with or without a
# trailing slash, left out of the schema: a PUT or PATCH that Django's APPEND_SLASH redirected
# would lose its body. Path segments are checked in the views, so a bad one is a JSON 404, not the
# site's page. A queue path may hold "/" (queue names may), hence ``path:`` and the lazy ``.+?``.
_Q = "partitions/<str:partition>/queues/<path:queue_path>"
_P_RE = r"partitions/(?P<partition>[^/]+)/queues"
_Q_RE = _P_RE + r"/(?P<queue_path>.+?)"

_ROUTES: list[tuple[str, str, type[APIView], str]] = [
    ("config", r"config", ConfigView, "api-config"),
    ("config/versions", r"config/versions", VersionsView, "api-config-versions"),
    ("config/versions/<str:number>", r"config/versions/(?P<number>[^/]+)", VersionView,
     "api-config-version"),
    ("config/versions/<str:number>/diff", r"config/versions/(?P<number>[^/]+)/diff",
     VersionDiffView, "api-config-version-diff"),
    ("config/versions/<str:number>/rollback", r"config/versions/(?P<number>[^/]+)/rollback",
     RollbackView, "api-config-version-rollback"),
    (f"{_Q}/limits/<str:index>/", rf"{_Q_RE}/limits/(?P<index>[^/]+)", LimitView, "api-limit"),
    (f"{_Q}/limits/", rf"{_Q_RE}/limits", LimitsView, "api-limits"),
    ("partitions/<str:partition>/queues/", _P_RE, QueuesView, "api-queues"),
    (f"{_Q}/", _Q_RE, QueueView, "api-queue"),
]

urlpatterns = [
    *(path(route, view.as_view(), name=name) for route, _, view, name in _ROUTES),
    *(re_path(rf"^{regex}/?$", view.as_view(schema=None)) for _, regex, view, _ in _ROUTES),
]

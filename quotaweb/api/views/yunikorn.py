"""YuniKorn-compatible reads under ``/ws/v1/`` (spec ``ugm.md`` section 3, ``api.md``).

The user and group objects come from the engines as they are (they already follow YuniKorn's
field names, omission rules and sort order). The queue tree takes its usage from the engine and
its configured values (max, guaranteed, app cap, properties) from the active configuration
version, so it shows what the configuration says even while an engine is a version behind.

Errors are YuniKorn's ``{"status_code", "message", "description"}`` (``api.errors`` picks the
shape from the path). User and group names reach the views decoded once by the server (so
``%2F`` is ``/``; the routes take ``/`` in a name) and are then query-unescaped once more, as
YuniKorn's handlers do, which is where a malformed escape such as ``%Zt`` is refused.

So that YuniKorn's own web UI and its clients work against quotaweb, the objects they read
follow yunikorn-core's DAO structs (``pkg/webservice/dao``): partitions (``PartitionInfo``),
clusters, the queue tree and one queue (``PartitionQueueDAOInfo``, ``config.yunikorn``), a
queue's applications and one application (``ApplicationDAOInfo`` from the live allocations,
``allocations.applications``), the application and container history (``usage.history``), the
health check (``SchedulerHealthDAOInfo``, ``api.scheduler_health``), and the node routes and
node utilisation, from the nodes a scheduler reported (``allocations.nodes``). Any other path
under /ws/v1/ is YuniKorn's JSON 404.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote_plus

from django.conf import settings
from django.urls import path, re_path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.permissions import BasePermission
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quotaweb.accounts.roles import is_viewer
from quotaweb.allocations.applications import (
    ACTIVE_STATUSES,
    APP_STATE_ACTIVE,
    APP_STATE_COMPLETED,
    APP_STATE_REJECTED,
    ApplicationStateInvalid,
    application_of,
    applications_in_queue,
    applications_in_state,
)
from quotaweb.allocations.nodes import (
    node_dao,
    node_of,
    nodes_load,
    nodes_of,
    nodes_utilisation,
    nodes_utilisation_dominant,
)
from quotaweb.api.cluster import CLUSTER_ID, clusters_info, partition_info, root_max
from quotaweb.api.names import (
    GROUP_NAME_PATTERN,
    QUEUE_NAMES_PATTERN,
    USER_NAME_PATTERN,
    any_case_pattern,
    path_parameter,
    pattern_string,
)
from quotaweb.api.parsers import AnyTextParser
from quotaweb.api.permissions import PublicReadOrViewer
from quotaweb.api.problems import ApiError, bad_request, not_found
from quotaweb.api.scheduler_health import scheduler_health
from quotaweb.api.serializers import (
    ApplicationHistorySerializer,
    ApplicationInfoSerializer,
    ClusterInfoSerializer,
    ContainerHistorySerializer,
    GroupUsageSerializer,
    NodeInfoSerializer,
    NodesUtilSerializer,
    PartitionInfoSerializer,
    PartitionNodesUtilSerializer,
    PartitionQueueSerializer,
    SchedulerHealthSerializer,
    UserUsageSerializer,
    YunikornErrorSerializer,
)
from quotaweb.config import selectors
from quotaweb.config.documents import config_document
from quotaweb.config.selectors import active_version, version_model
from quotaweb.config.services import elastic_partitions
from quotaweb.config.yunikorn import queue_dao, queue_exists, queue_tree_dao
from quotaweb.engine.gateway import UnknownPartition, engines_get
from quotaweb.usage.history import application_history, container_history
from trackers import validate_config
from trackers.config import normalise_partition_name
from trackers.names import is_group_name, is_queue_name, is_user_name

ERR_USER_NOT_FOUND = "User not found"
ERR_GROUP_NOT_FOUND = "Group not found"
ERR_INVALID_USER = "Invalid user name"
ERR_INVALID_GROUP = "Invalid group name"
ERR_MISSING_PARAMETERS = "Missing parameters"
ERR_FORMAT = "format must be json or yaml"
# YuniKorn's texts (pkg/webservice/handlers.go), which its web UI and clients know.
ERR_QUEUE_NOT_FOUND = "Queue not found"
ERR_APPLICATION_NOT_FOUND = "Application not found"
ERR_NODE_NOT_FOUND = "Node not found"
ERR_INVALID_QUEUE = (
    "problem in queue query parameter parsing as queue param {path} contains invalid queue "
    "name {name}. Queue name must only have alphanumeric characters, _ - : # / or @, and be "
    "no longer than 64 characters"
)
# The same text as the site's 404 handler (quotaweb.core.views) for a path nothing serves.
ERR_NO_ROUTE = "there is no {method} {path} in the API; see /api/docs/"
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


def _known_partition(name: str) -> str:
    """The partition's name, or ``UnknownPartition`` (YuniKorn's 404 "Partition not found")."""
    partition = _partition(name)
    if partition not in engines_get().partitions():
        raise UnknownPartition(partition)
    return partition


def _queue(raw: str) -> str:
    """A queue path from the URL, query-unescaped as YuniKorn's handlers do; a 400 naming the
    first segment that is no queue name."""
    queue_path = query_unescape(raw)
    for name in queue_path.split("."):
        if not is_queue_name(name):
            raise bad_request(ERR_INVALID_QUEUE.format(path=queue_path, name=name))
    return queue_path


def _errors(**texts: str) -> dict[int, OpenApiResponse]:
    """Documented error answers (YuniKorn's error body): ``_errors(e404="why", ...)``."""
    return {
        int(code[1:]): OpenApiResponse(YunikornErrorSerializer, description=text)
        for code, text in texts.items()
    }


_STARTING = "the quota engines are still starting"
DEFAULT_PARTITION = "default"
_NO_PARTITION = "Partition not found"
_BAD_QUEUE = "a malformed escape, or a queue path with a segment that is no queue name"


# -- views -------------------------------------------------------------------------------------

class PartitionsView(YunikornView):
    """YuniKorn's ``PartitionInfo`` per partition (``api.cluster``): the capacity of the nodes a
    scheduler reported (else the elastic cluster total), their number, usage and utilisation;
    an application is running while it has live allocations; ``totalContainers`` counts the
    live allocations."""

    @extend_schema(responses={200: PartitionInfoSerializer(many=True),
                              **_errors(e503=_STARTING)})
    def get(self, request: Request) -> Response:
        return Response([partition_info(name=name) for name in engines_get().partitions()])


class ClustersView(YunikornView):
    """YuniKorn's ``ClusterDAOInfo`` per partition: when the engines started (nanoseconds) and
    quotaweb's build information."""

    @extend_schema(responses={200: ClusterInfoSerializer(many=True), **_errors(e503=_STARTING)})
    def get(self, request: Request) -> Response:
        return Response(clusters_info())


class QueuesView(YunikornView):
    @extend_schema(responses={200: PartitionQueueSerializer,
                              **_errors(e404=_NO_PARTITION, e503=_STARTING)})
    def get(self, request: Request, partition: str) -> Response:
        name = _partition(partition)
        return Response(queue_tree_dao(partition=name, root_max=root_max(partition=name)))


_QUEUE_PARAMETER = path_parameter(
    "queue", QUEUE_NAMES_PATTERN, "a queue path (dotted queue names, e.g. root.research)")


class QueueView(YunikornView):
    """One queue; its children too when ``subtree`` is given (any value), as in YuniKorn."""

    @extend_schema(
        parameters=[_QUEUE_PARAMETER, OpenApiParameter(
            "subtree", str, required=False,
            description="present (any value): include the queue's children",
        )],
        responses={200: PartitionQueueSerializer, **_errors(
            e400=_BAD_QUEUE, e404=f"{_NO_PARTITION}, or {ERR_QUEUE_NOT_FOUND}",
            e503=_STARTING,
        )},
    )
    def get(self, request: Request, partition: str, queue: str) -> Response:
        name = _known_partition(partition)
        found = queue_dao(partition=name, queue_path=_queue(queue),
                          subtree="subtree" in request.query_params,
                          root_max=root_max(partition=name))
        if found is None:
            raise not_found(ERR_QUEUE_NOT_FOUND)
        return Response(found)


class QueueApplicationsView(YunikornView):
    """The applications with live allocations in that queue (a leaf, where YuniKorn keeps
    applications), sorted by id."""

    @extend_schema(parameters=[_QUEUE_PARAMETER], responses={
        200: ApplicationInfoSerializer(many=True), **_errors(
        e400=_BAD_QUEUE, e404=f"{_NO_PARTITION}, or {ERR_QUEUE_NOT_FOUND}", e503=_STARTING,
        )})
    def get(self, request: Request, partition: str, queue: str) -> Response:
        name = _known_partition(partition)
        queue_path = _queue(queue)
        if not queue_exists(partition=name, queue_path=queue_path):
            raise not_found(ERR_QUEUE_NOT_FOUND)
        return Response(applications_in_queue(partition=name, queue_path=queue_path))


class ApplicationsInStateView(YunikornView):
    """YuniKorn's applications of a partition by state: ``active`` (with live allocations;
    ``?status=`` keeps those in one active state), ``completed`` (the newest kept) or
    ``rejected`` (always none here); any case."""

    @extend_schema(parameters=[
        path_parameter(
            "state", any_case_pattern((APP_STATE_ACTIVE, APP_STATE_COMPLETED, APP_STATE_REJECTED)),
            f"{APP_STATE_ACTIVE}, {APP_STATE_COMPLETED} or {APP_STATE_REJECTED} (any case); 400 "
            "for another",
        ),
        OpenApiParameter(
            "status", pattern_string(any_case_pattern(ACTIVE_STATUSES, or_empty=True)),
            description=(
                f"active applications in this state only: {', '.join(ACTIVE_STATUSES)} (any "
                "case); 400 for another. Read for the active state only, as YuniKorn reads it"
            ),
        ),
    ], responses={200: ApplicationInfoSerializer(many=True), **_errors(
        e400="an unknown state or status", e404=_NO_PARTITION, e503=_STARTING,
    )})
    def get(self, request: Request, partition: str, state: str) -> Response:
        name = _known_partition(partition)
        try:
            found = applications_in_state(
                partition=name, state=state, status=request.query_params.get("status", "")
            )
        except ApplicationStateInvalid as error:
            raise bad_request(str(error)) from None
        return Response(found)


class QueueApplicationView(YunikornView):
    @extend_schema(parameters=[_QUEUE_PARAMETER], responses={
        200: ApplicationInfoSerializer, **_errors(
            e400=_BAD_QUEUE,
            e404=f"{_NO_PARTITION}, {ERR_QUEUE_NOT_FOUND}, or {ERR_APPLICATION_NOT_FOUND}",
            e503=_STARTING,
        )})
    def get(self, request: Request, partition: str, queue: str, application: str) -> Response:
        name = _known_partition(partition)
        queue_path = _queue(queue)
        if not queue_exists(partition=name, queue_path=queue_path):
            raise not_found(ERR_QUEUE_NOT_FOUND)
        found = application_of(partition=name, application_id=application, queue_path=queue_path)
        if found is None:
            raise not_found(ERR_APPLICATION_NOT_FOUND)
        return Response(found)


class ApplicationView(YunikornView):
    """An application wherever its live allocations are in the partition."""

    @extend_schema(responses={200: ApplicationInfoSerializer, **_errors(
        e404=f"{_NO_PARTITION}, or {ERR_APPLICATION_NOT_FOUND}", e503=_STARTING,
    )})
    def get(self, request: Request, partition: str, application: str) -> Response:
        name = _known_partition(partition)
        found = application_of(partition=name, application_id=application)
        if found is None:
            raise not_found(ERR_APPLICATION_NOT_FOUND)
        return Response(found)


class NodesView(YunikornView):
    """The nodes a scheduler reported (``PUT /api/v1/partitions/{p}/nodes``), by node ID; none
    until one does."""

    @extend_schema(responses={200: NodeInfoSerializer(many=True),
                              **_errors(e404=_NO_PARTITION, e503=_STARTING)})
    def get(self, request: Request, partition: str) -> Response:
        name = _known_partition(partition)
        load = nodes_load(partition=name)
        return Response([node_dao(node, load) for node in nodes_of(partition=name)])


class NodeView(YunikornView):
    @extend_schema(responses={200: NodeInfoSerializer, **_errors(
        e404=f"{_NO_PARTITION}, or {ERR_NODE_NOT_FOUND}", e503=_STARTING,
    )})
    def get(self, request: Request, partition: str, node: str) -> Response:
        name = _known_partition(partition)
        found = node_of(partition=name, node_id=node)
        if found is None:
            raise not_found(ERR_NODE_NOT_FOUND)
        return Response(node_dao(found, nodes_load(partition=name, node_id=found.node_id)))


class NodeUtilizationsView(YunikornView):
    """Per partition, how many reported nodes fall in each tenth of utilisation, per resource
    type (``allocations.nodes``)."""

    @extend_schema(responses={200: PartitionNodesUtilSerializer(many=True),
                              **_errors(e503=_STARTING)})
    def get(self, request: Request) -> Response:
        return Response([
            nodes_utilisation(partition=name, cluster_id=CLUSTER_ID)
            for name in engines_get().partitions()
        ])


class NodeUtilizationView(YunikornView):
    """YuniKorn's deprecated single-resource form, of its default partition: the buckets of the
    type its nodes use most of; an empty object without nodes (or without that partition)."""

    @extend_schema(responses={200: NodesUtilSerializer, **_errors(e503=_STARTING)})
    def get(self, request: Request) -> Response:
        if DEFAULT_PARTITION not in engines_get().partitions():
            return Response({})
        return Response(nodes_utilisation_dominant(partition=DEFAULT_PARTITION))


class ApplicationHistoryView(YunikornView):
    """Running applications per sampling pass (``usage.history``), oldest first."""

    @extend_schema(responses={200: ApplicationHistorySerializer(many=True),
                              **_errors(e503=_STARTING)})
    def get(self, request: Request) -> Response:
        return Response(application_history())


class ContainerHistoryView(YunikornView):
    """Live allocations per sampling pass (``usage.history``), oldest first."""

    @extend_schema(responses={200: ContainerHistorySerializer(many=True),
                              **_errors(e503=_STARTING)})
    def get(self, request: Request) -> Response:
        return Response(container_history())


class HealthcheckView(YunikornView):
    """quotaweb's checks (engines loaded, ledger database, channel layer) in YuniKorn's shape;
    200 with ``Healthy`` false when one fails, as YuniKorn answers."""

    @extend_schema(responses={200: SchedulerHealthSerializer})
    def get(self, request: Request) -> Response:
        return Response(scheduler_health())


@extend_schema(exclude=True)
class UnknownPathView(YunikornView):
    """Any other path under /ws/v1/: YuniKorn's JSON error, never an HTML page (Django's debug
    404 included). A path nothing serves is no secret, so no login is asked for."""

    permission_classes = []

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        raise not_found(ERR_NO_ROUTE.format(method=request.method, path=request.path))

    post = put = patch = delete = get


class UsersView(YunikornView):
    @extend_schema(responses=UserUsageSerializer(many=True))
    def get(self, request: Request, partition: str) -> Response:
        return Response(engines_get().users_usage(_partition(partition)))


class UserView(YunikornView):
    @staticmethod
    def member_scope(request: Request, kwargs: dict[str, Any]) -> list[tuple[str, str]]:
        return [("user", query_unescape(kwargs["user"]))]

    @extend_schema(responses=UserUsageSerializer, parameters=[path_parameter(
        "user", USER_NAME_PATTERN, "a user name; 400 for one that is no valid name")])
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
    @staticmethod
    def member_scope(request: Request, kwargs: dict[str, Any]) -> list[tuple[str, str]]:
        return [("group", query_unescape(kwargs["group"]))]

    @extend_schema(responses=GroupUsageSerializer, parameters=[path_parameter(
        "group", GROUP_NAME_PATTERN, "a group name; 400 for one that is no valid name")])
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

    # Both answers are the one document (a mapping): as written in YAML, or parsed in JSON.
    @extend_schema(responses={(200, "text/yaml"): OpenApiTypes.OBJECT,
                              (200, "application/json"): OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        # DRF ignores an empty ?format=; the schema's enum says json or yaml, so say so.
        if request.query_params.get("format", "json") not in ("json", "yaml"):
            raise bad_request(ERR_FORMAT)
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
        request={"application/yaml": OpenApiTypes.ANY},
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
    path("clusters", ClustersView.as_view(), name="yunikorn-clusters"),
    path("partitions", PartitionsView.as_view(), name="yunikorn-partitions"),
    path("partition/<str:partition>/queues", QueuesView.as_view(), name="yunikorn-queues"),
    # Queue paths and application ids may hold "/" (names with "/" arrive decoded from "%2F");
    # the longer routes come first so a queue path never swallows their tails.
    path("partition/<str:partition>/queue/<path:queue>/applications",
         QueueApplicationsView.as_view(), name="yunikorn-queue-applications"),
    path("partition/<str:partition>/queue/<path:queue>/application/<path:application>",
         QueueApplicationView.as_view(), name="yunikorn-queue-application"),
    path("partition/<str:partition>/queue/<path:queue>", QueueView.as_view(),
         name="yunikorn-queue"),
    path("partition/<str:partition>/applications/<str:state>", ApplicationsInStateView.as_view(),
         name="yunikorn-applications-in-state"),
    path("partition/<str:partition>/application/<path:application>",
         ApplicationView.as_view(), name="yunikorn-application"),
    path("partition/<str:partition>/nodes", NodesView.as_view(), name="yunikorn-nodes"),
    path("partition/<str:partition>/node/<path:node>", NodeView.as_view(), name="yunikorn-node"),
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
    path("history/apps", ApplicationHistoryView.as_view(), name="yunikorn-history-apps"),
    path("history/containers", ContainerHistoryView.as_view(),
         name="yunikorn-history-containers"),
    path("scheduler/healthcheck", HealthcheckView.as_view(), name="yunikorn-healthcheck"),
    path("scheduler/node-utilizations", NodeUtilizationsView.as_view(),
         name="yunikorn-node-utilizations"),
    path("scheduler/node-utilization", NodeUtilizationView.as_view(),
         name="yunikorn-node-utilization"),
    # Last: everything else under /ws/v1/, a newline in the path too.
    re_path(r"^[\s\S]*$", UnknownPathView.as_view()),
]

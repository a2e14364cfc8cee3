"""Request bodies and answers of the configuration API.

Bodies use the row field names of ``quotaweb.config.edits`` (``max_applications``,
``max_resources`` ...) so the API and the browser forms hand the same values to the same edits.
The fields here check only the JSON types: whether the values make a valid configuration is for
``trackers`` to judge on the whole candidate (the same verdict the browser gets). DRF's fields are
lenient (``"5"`` passes as an integer, ``5`` as text); these are not, so a wrong type is a 400
naming the field, never a surprise later. Unknown keys are refused too, naming them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from quotaweb.api.names import QUEUE_NAME_PATTERN, pattern_string
from quotaweb.config.edits import LIMIT_FIELDS, QUEUE_FIELDS
from trackers.resources import INT64_MAX

ERR_UNKNOWN_FIELDS = "unknown fields: {fields}; the fields accepted here are {allowed}"
ERR_NOT_OBJECT = "the body must be a JSON object, not {found}"
ERR_TEXT = "must be text (a JSON string)"
ERR_INTEGER = "must be a whole number (a JSON integer)"
ERR_BOOLEAN = "must be true or false"
ERR_MAP = "must be an object of {what}"
ERR_LIST = "must be a list of names (JSON strings)"
ERR_NUL = "must not contain NUL characters"
ERR_SURROGATE = "must not contain unpaired surrogate characters"
ERR_QUANTITY = (
    "quantity of {kind!r} must be text like \"10Gi\" or \"500m\" (or a whole number), "
    "not {found}"
)

_SURROGATE = re.compile("[\ud800-\udfff]")

# The options every write takes besides the values it changes.
WRITE_OPTIONS = frozenset({"comment", "base_version"})
COMMENT_MAX = 1000


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _check_text(value: Any) -> None:
    """Refuse NUL and lone surrogates anywhere in ``value`` (keys included): no database or
    YAML writer downstream can store them, so they would fail late instead of as a 400."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise serializers.ValidationError(ERR_NUL)
            if _SURROGATE.search(item):
                raise serializers.ValidationError(ERR_SURROGATE)
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


class TextField(serializers.CharField):
    """Text only: a number or boolean is refused rather than turned into text."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            raise serializers.ValidationError(ERR_TEXT)
        return super().to_internal_value(data)


@extend_schema_field(pattern_string(QUEUE_NAME_PATTERN))
class QueueNameField(TextField):
    """A queue's own name (the validator's rule Q2 judges it; the schema says the same rule)."""


class WholeNumberField(serializers.IntegerField):
    """A JSON integer only (not ``"5"``, ``5.0`` or ``true``), from 0 to int64's max."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", INT64_MAX)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise serializers.ValidationError(ERR_INTEGER)
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            raise serializers.ValidationError(ERR_BOOLEAN)
        return data


class QuantityMapField(serializers.DictField):
    """``{"memory": "10Gi", "vcore": "500m"}``: quantity text by resource type, as a config
    file writes it. A whole number is taken as its text (``4`` is ``"4"``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.CharField(), **kwargs)

    def to_internal_value(self, data: Any) -> dict[str, str]:
        if not isinstance(data, Mapping):
            raise serializers.ValidationError(ERR_MAP.format(what="resource type to quantity"))
        _check_text(data)
        out: dict[str, str] = {}
        for kind, quantity in data.items():
            if isinstance(quantity, str):
                out[kind] = quantity
            elif isinstance(quantity, int) and not isinstance(quantity, bool):
                out[kind] = str(quantity)
            else:
                raise serializers.ValidationError(
                    ERR_QUANTITY.format(kind=kind, found=_json_type(quantity))
                )
        return out


class TextMapField(serializers.DictField):
    """``{"name": "value"}`` with text values (queue properties)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.CharField(allow_blank=True), **kwargs)

    def to_internal_value(self, data: Any) -> dict[str, str]:
        if not isinstance(data, Mapping) or not all(
            isinstance(value, str) for value in data.values()
        ):
            raise serializers.ValidationError(ERR_MAP.format(what="names to text"))
        _check_text(data)
        return dict(data)


class NameListField(serializers.ListField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.CharField(), **kwargs)

    def to_internal_value(self, data: Any) -> list[str]:
        if not isinstance(data, list) or not all(isinstance(name, str) for name in data):
            raise serializers.ValidationError(ERR_LIST)
        _check_text(data)
        return list(data)


class ObjectField(serializers.DictField):
    """Any JSON object (a child template, in the document's own spelling; the validator reads
    its keys and values)."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            raise serializers.ValidationError(ERR_MAP.format(what="keys to values"))
        _check_text(data)
        return dict(data)


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not declare (naming them) and bodies that are not JSON objects."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            raise serializers.ValidationError(
                {"non_field_errors": [ERR_NOT_OBJECT.format(found=_json_type(data))]}
            )
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({"non_field_errors": [ERR_UNKNOWN_FIELDS.format(
                fields=", ".join(unknown), allowed=", ".join(sorted(self.fields)),
            )]})
        return super().to_internal_value(data)


class WriteOptionsSerializer(StrictSerializer):
    """What every write may carry: why (shown in the history) and the version it was based on
    (as ``If-Match``: refused with 412 when another version became active meanwhile)."""

    comment = TextField(required=False, allow_blank=True, max_length=COMMENT_MAX)
    base_version = WholeNumberField(required=False, allow_null=True)


class ConfigPutSerializer(WriteOptionsSerializer):
    yaml = TextField(allow_blank=True, help_text="the whole configuration document")


class QueueValuesSerializer(WriteOptionsSerializer):
    """A queue's own values (``quotaweb.config.edits.QUEUE_FIELDS``); only those sent change."""

    name = QueueNameField(required=False)
    guaranteed = QuantityMapField(required=False)
    max = QuantityMapField(required=False)
    max_applications = WholeNumberField(required=False)
    properties = TextMapField(required=False)
    admin_acl = TextField(required=False, allow_null=True, allow_blank=True)
    submit_acl = TextField(required=False, allow_null=True, allow_blank=True)
    is_parent = StrictBooleanField(required=False, allow_null=True)
    child_template = ObjectField(required=False, allow_null=True)
    has_resources = StrictBooleanField(required=False)


class QueueCreateSerializer(QueueValuesSerializer):
    name = QueueNameField()
    parent = TextField(
        required=False, default="root", help_text="path of the parent queue, e.g. root.eng"
    )
    position = WholeNumberField(
        required=False, allow_null=True,
        help_text="place among the parent's children (0 first); last when not given",
    )


class LimitValuesSerializer(WriteOptionsSerializer):
    """A limit entry's values (``quotaweb.config.edits.LIMIT_FIELDS``); only those sent change."""

    description = TextField(required=False, allow_null=True, allow_blank=True)
    users = NameListField(required=False)
    groups = NameListField(required=False)
    max_resources = QuantityMapField(required=False)
    max_applications = WholeNumberField(required=False)


class LimitCreateSerializer(LimitValuesSerializer):
    position = WholeNumberField(
        required=False, allow_null=True,
        help_text="place among the queue's entries (0 first); by default before the first "
        "wildcard entry, as in the browser",
    )


def split_values(data: Mapping[str, Any], fields: frozenset[str]) -> tuple[dict, dict]:
    """``(values for the edit, everything else)`` of validated data."""
    values = {key: value for key, value in data.items() if key in fields}
    rest = {key: value for key, value in data.items() if key not in fields}
    return values, rest


def queue_values_and_options(data: Mapping[str, Any]) -> tuple[dict, dict]:
    return split_values(data, QUEUE_FIELDS)


def limit_values_and_options(data: Mapping[str, Any]) -> tuple[dict, dict]:
    return split_values(data, LIMIT_FIELDS)


# -- answers (documented for the schema; the views build them from the selectors) ---------------


class VersionSerializer(serializers.Serializer):
    version = serializers.IntegerField(source="number")
    created = serializers.DateTimeField()
    author = serializers.CharField(source="author.username", allow_null=True)
    comment = serializers.CharField()
    checksum = serializers.CharField()
    based_on = serializers.IntegerField(source="based_on_id", allow_null=True)


class VersionWithYamlSerializer(VersionSerializer):
    yaml = serializers.CharField()


class ImpactSerializer(serializers.Serializer):
    partition = serializers.CharField()
    kind = serializers.ChoiceField(choices=["user", "group"])
    name = serializers.CharField()
    queuePath = serializers.CharField()  # the contract's spelling
    usage = serializers.DictField(child=serializers.IntegerField())
    limit = serializers.DictField(child=serializers.IntegerField(), allow_null=True)
    runningApplications = serializers.IntegerField()
    maxApplications = serializers.IntegerField()


class AppliedSerializer(VersionSerializer):
    impact = ImpactSerializer(many=True)
    # Only when there is something to say: a ConfigMap's keys other than queues.yaml ignored, a
    # resource type that neither the configuration written over nor the trackers know.
    warnings = serializers.ListField(child=serializers.CharField(), required=False)


class DryRunSerializer(serializers.Serializer):
    dry_run = serializers.BooleanField()
    valid = serializers.BooleanField()
    active_version = serializers.IntegerField(allow_null=True)
    details = serializers.ListField(child=serializers.DictField())
    changes = serializers.ListField(child=serializers.DictField())
    impact = ImpactSerializer(many=True)
    warnings = serializers.ListField(child=serializers.CharField(), required=False)


class LimitAnswerSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    description = serializers.CharField(allow_null=True)
    users = serializers.ListField(child=serializers.CharField())
    groups = serializers.ListField(child=serializers.CharField())
    max_resources = serializers.DictField(child=serializers.CharField())
    max_applications = serializers.IntegerField()


class QueueAnswerSerializer(serializers.Serializer):
    partition = serializers.CharField()
    path = serializers.CharField()
    name = serializers.CharField()
    has_resources = serializers.BooleanField()
    guaranteed = serializers.DictField(child=serializers.CharField())
    max = serializers.DictField(child=serializers.CharField())
    max_applications = serializers.IntegerField()
    properties = serializers.DictField(child=serializers.CharField())
    admin_acl = serializers.CharField(allow_null=True)
    submit_acl = serializers.CharField(allow_null=True)
    is_parent = serializers.BooleanField(allow_null=True)
    child_template = serializers.DictField(allow_null=True)
    children = serializers.ListField(child=serializers.CharField())
    limits = LimitAnswerSerializer(many=True)


class QueueWrittenSerializer(AppliedSerializer):
    queue = QueueAnswerSerializer()


class LimitWrittenSerializer(AppliedSerializer):
    limit = LimitAnswerSerializer()


# -- the YuniKorn shapes of /ws/v1/ (ugm.md section 3), for the schema -----------------------------
# Field names are YuniKorn's; fields left out when empty are not required.


class UsageNodeSerializer(serializers.Serializer):
    queuePath = serializers.CharField()
    resourceUsage = serializers.DictField(child=serializers.IntegerField(), required=False)
    runningApplications = serializers.ListField(child=serializers.CharField(), required=False)
    maxResources = serializers.DictField(child=serializers.IntegerField(), required=False)
    maxApplications = serializers.IntegerField(required=False)
    children = serializers.ListField(
        child=serializers.DictField(), required=False, help_text="nodes of the same shape"
    )


class UserUsageSerializer(serializers.Serializer):
    userName = serializers.CharField()
    groups = serializers.DictField(
        child=serializers.CharField(), required=False, help_text="application id to group"
    )
    queues = UsageNodeSerializer()


class GroupUsageSerializer(serializers.Serializer):
    groupName = serializers.CharField()
    applications = serializers.ListField(child=serializers.CharField(), required=False)
    queues = UsageNodeSerializer()


class QueueNodeSerializer(serializers.Serializer):
    queuename = serializers.CharField()
    maxResource = serializers.DictField(child=serializers.IntegerField(), required=False)
    guaranteedResource = serializers.DictField(child=serializers.IntegerField(), required=False)
    allocatedResource = serializers.DictField(child=serializers.IntegerField(), required=False)
    maxRunningApps = serializers.IntegerField(required=False)
    runningApps = serializers.IntegerField()
    properties = serializers.DictField(child=serializers.CharField(), required=False)
    children = serializers.ListField(
        child=serializers.DictField(), required=False, help_text="queues of the same shape"
    )


# -- the YuniKorn DAO objects added for its web UI and clients (yunikorn-core pkg/webservice/dao) --
# Names, types and omissions as the DAO structs: a field YuniKorn leaves out when empty
# (``omitempty``) is not required here.


def _resource_map(**kwargs) -> serializers.DictField:
    """A resource map in base units (``{"memory": bytes, "vcore": millicores}``)."""
    return serializers.DictField(child=serializers.IntegerField(), **kwargs)


class YunikornErrorSerializer(serializers.Serializer):
    status_code = serializers.IntegerField()
    message = serializers.CharField()
    description = serializers.CharField()


class TemplateInfoSerializer(serializers.Serializer):
    maxApplications = serializers.IntegerField(required=False)
    maxResource = _resource_map(required=False)
    guaranteedResource = _resource_map(required=False)
    properties = serializers.DictField(child=serializers.CharField(), required=False)


class PartitionQueueSerializer(QueueNodeSerializer):
    """``PartitionQueueDAOInfo``: the queue node above plus YuniKorn's status, place in the tree,
    headroom, used percentage and child template."""

    status = serializers.CharField()
    partition = serializers.CharField()
    headroom = _resource_map(
        required=False, help_text="what may still be added: max minus allocated, the tighter "
        "with the parent's headroom; a queue without a max has its parent's",
    )
    isLeaf = serializers.BooleanField()
    isManaged = serializers.BooleanField(help_text="configured (true) or dynamic (false)")
    parent = serializers.CharField(required=False)
    template = TemplateInfoSerializer(required=False)
    childNames = serializers.ListField(child=serializers.CharField(), required=False)
    absUsedCapacity = _resource_map(
        required=False, help_text="integer percent of max used, per type of max with usage"
    )
    currentPriority = serializers.IntegerField(
        help_text="highest priority of pending requests; int32's minimum without any"
    )
    sortingPolicy = serializers.CharField(
        required=False, help_text="\"fair\" for a parent; a leaf's application.sort.policy, "
        "\"fifo\" unless \"fair\""
    )
    prioritySorting = serializers.BooleanField()
    preemptionEnabled = serializers.BooleanField()
    isPreemptionFence = serializers.BooleanField()
    preemptionDelay = serializers.CharField(
        required=False, help_text="as Go writes a duration (\"30s\", \"1m0s\")"
    )
    isPriorityFence = serializers.BooleanField()
    priorityOffset = serializers.IntegerField(required=False)


class PartitionCapacitySerializer(serializers.Serializer):
    capacity = _resource_map(required=False)
    usedCapacity = _resource_map(required=False)
    utilization = _resource_map(required=False)


class NodeSortingPolicySerializer(serializers.Serializer):
    type = serializers.CharField(required=False)
    resourceWeights = serializers.DictField(child=serializers.FloatField(), required=False)


class PartitionInfoSerializer(serializers.Serializer):
    """``PartitionInfo`` (with quotaweb's own counts of the configuration version, queues, users
    and groups)."""

    name = serializers.CharField()
    state = serializers.CharField()
    configVersion = serializers.IntegerField(allow_null=True)
    totalQueues = serializers.IntegerField()
    totalUsers = serializers.IntegerField()
    totalGroups = serializers.IntegerField()
    clusterId = serializers.CharField()
    capacity = PartitionCapacitySerializer()
    nodeSortingPolicy = NodeSortingPolicySerializer()
    preemptionEnabled = serializers.BooleanField()
    quotaPreemptionEnabled = serializers.BooleanField()
    totalNodes = serializers.IntegerField(help_text="reported nodes; 0 until a scheduler reports")
    applications = serializers.DictField(
        child=serializers.IntegerField(), help_text="applications by state, and total"
    )
    totalContainers = serializers.IntegerField(required=False, help_text="live allocations")


class ClusterInfoSerializer(serializers.Serializer):
    startTime = serializers.IntegerField(required=False, help_text="nanoseconds since the epoch")
    rmBuildInformation = serializers.ListField(
        child=serializers.DictField(child=serializers.CharField()),
        help_text="quotaweb's build: buildVersion, buildDate, isPluginVersion, rmId, ...",
    )
    partition = serializers.CharField()
    clusterName = serializers.CharField()


class AllocationInfoSerializer(serializers.Serializer):
    allocationKey = serializers.CharField()
    requestTime = serializers.IntegerField(required=False, help_text="nanoseconds")
    allocationTime = serializers.IntegerField(required=False, help_text="nanoseconds")
    resource = _resource_map(required=False)
    priority = serializers.CharField(help_text="as the scheduler sent it; \"0\" without one")
    nodeId = serializers.CharField(required=False, help_text="the node the scheduler named")
    applicationId = serializers.CharField(required=False)
    partition = serializers.CharField(required=False)
    queueName = serializers.CharField(required=False)


class StateInfoSerializer(serializers.Serializer):
    time = serializers.IntegerField(help_text="nanoseconds since the epoch")
    applicationState = serializers.CharField()


class ApplicationInfoSerializer(serializers.Serializer):
    applicationID = serializers.CharField()
    usedResource = _resource_map(required=False)
    maxUsedResource = _resource_map(required=False)
    partition = serializers.CharField()
    queueName = serializers.CharField()
    submissionTime = serializers.IntegerField(required=False, help_text="nanoseconds")
    finishedTime = serializers.IntegerField(required=False, help_text="nanoseconds")
    allocations = AllocationInfoSerializer(many=True, required=False)
    applicationState = serializers.CharField(required=False)
    user = serializers.CharField(required=False)
    groups = serializers.ListField(child=serializers.CharField(), required=False)
    stateLog = StateInfoSerializer(many=True, required=False)


class ApplicationHistorySerializer(serializers.Serializer):
    timestamp = serializers.IntegerField(help_text="nanoseconds since the epoch")
    totalApplications = serializers.CharField(help_text="running applications, as text")


class ContainerHistorySerializer(serializers.Serializer):
    timestamp = serializers.IntegerField(help_text="nanoseconds since the epoch")
    totalContainers = serializers.CharField(help_text="live allocations, as text")


class HealthCheckInfoSerializer(serializers.Serializer):
    Name = serializers.CharField(required=False)
    Succeeded = serializers.BooleanField()
    Description = serializers.CharField(required=False)
    DiagnosisMessage = serializers.CharField(required=False)


class SchedulerHealthSerializer(serializers.Serializer):
    Healthy = serializers.BooleanField()
    HealthChecks = HealthCheckInfoSerializer(many=True, required=False)


class NodeInfoSerializer(serializers.Serializer):
    """``NodeDAOInfo`` of a node a scheduler reported. Once live allocations of the partition
    name their node (``nodeId``), ``allocated`` and ``allocations`` are theirs and use follows
    them; until then ``occupied`` stands for use (``allocations.nodes``)."""

    nodeID = serializers.CharField()
    hostName = serializers.CharField(required=False)
    rackName = serializers.CharField(required=False)
    attributes = serializers.DictField(child=serializers.CharField(), required=False)
    capacity = _resource_map(required=False)
    allocated = _resource_map(required=False, help_text="the sum of the node's allocations")
    occupied = _resource_map(required=False)
    available = _resource_map(
        required=False, help_text="capacity minus allocated minus occupied (minus occupied "
        "alone while no allocation names a node)",
    )
    utilized = _resource_map(
        required=False, help_text="integer percent of capacity allocated (occupied while no "
        "allocation names a node)",
    )
    allocations = AllocationInfoSerializer(many=True, required=False)
    schedulable = serializers.BooleanField()
    isReserved = serializers.BooleanField()


class PartitionNodesUtilSerializer(serializers.Serializer):
    clusterId = serializers.CharField()
    partition = serializers.CharField()
    utilizations = serializers.ListField(child=serializers.DictField(), required=False)


class NodesUtilSerializer(serializers.Serializer):
    type = serializers.CharField(required=False)
    utilization = serializers.ListField(child=serializers.DictField(), required=False)


class ElasticQuotaImportedSerializer(AppliedSerializer):
    """An ElasticQuota import applied: the version, its impact, and what was read."""

    groups = serializers.IntegerField(help_text="quota groups imported, one queue each")
    notes = serializers.ListField(child=serializers.CharField())


class ElasticQuotaDryRunSerializer(DryRunSerializer):
    groups = serializers.IntegerField()
    notes = serializers.ListField(child=serializers.CharField())

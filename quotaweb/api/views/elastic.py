"""The elastic quota API (``/api/v1/partitions/{p}/elastic``, api.md "Elastic quota"): the tree
with every runtime, the cluster total, each leaf queue's demand, the switch, one runtime
explained, and the queues above their runtime."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quotaweb.api.names import QUEUE_PATH_PATTERN, pattern_string
from quotaweb.api.problems import bad_request, body_with
from quotaweb.api.views.allocations import ErrorOut, ResourceField
from quotaweb.elastic import selectors, services

# A resource map in base units, as the body of PUT cluster-total (a raw schema: no serializer
# describes a map of free keys as the body itself).
RESOURCE_MAP = {
    "type": "object", "additionalProperties": {"type": "integer", "minimum": 0},
    "description": "{type: integer} in base units (memory bytes, vcore millicores)",
}

ERR_EXPLAIN_PARAMS = "queuePath and resource are required"


class ElasticQueueOut(serializers.Serializer):
    queuePath = serializers.CharField()
    parent = serializers.CharField(allow_null=True)
    leaf = serializers.BooleanField()
    system = serializers.BooleanField()
    min = ResourceField()
    max = ResourceField()
    sharedWeight = ResourceField()
    allowLent = serializers.BooleanField()
    autoScaleMin = ResourceField(help_text="min after scaling when the mins did not fit")
    demand = ResourceField(help_text="pending demand reported for the queue")
    request = ResourceField(help_text="used + pending demand (a parent: its children's)")
    limitedRequest = ResourceField(help_text="request capped at max: what the parent sees")
    used = ResourceField()
    runtime = ResourceField(help_text="what the queue may use now")
    lent = ResourceField(help_text="min - runtime where positive")
    borrowed = ResourceField(help_text="runtime - min where positive")
    unallocated = ResourceField(help_text="a parent's pool its children were not given")
    overUsed = ResourceField(allow_null=True, help_text="used - runtime where used is above")
    overSince = serializers.DateTimeField(allow_null=True)


class ElasticOut(serializers.Serializer):
    enabled = serializers.BooleanField()
    clusterTotal = ResourceField()
    pool = ResourceField(help_text="the cluster total minus system queues' usage")
    computedAt = serializers.DateTimeField(allow_null=True)
    generation = serializers.IntegerField()
    queues = ElasticQueueOut(many=True)


class ElasticView(APIView):
    @extend_schema(responses={200: ElasticOut, 404: ErrorOut},
                   summary="Elastic quota of a partition: every queue's runtime")
    def get(self, request: Request, partition: str) -> Response:
        return Response(selectors.elastic_view(partition=partition))


class ClusterTotalView(APIView):
    @extend_schema(
        request={"application/json": RESOURCE_MAP},
        responses={200: ElasticOut, 400: ErrorOut, 404: ErrorOut},
        summary="Set the resources the partition shares (the cluster total)",
    )
    def put(self, request: Request, partition: str) -> Response:
        services.elastic_total_set(partition=partition, total=request.data, author=request.user)
        return Response(selectors.elastic_view(partition=partition))


class DemandView(APIView):
    @extend_schema(
        request=inline_serializer("ElasticDemand", {
            "queuePath": serializers.RegexField(QUEUE_PATH_PATTERN), "resource": ResourceField(),
        }),
        responses={200: ElasticOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut},
        summary="Replace a leaf queue's pending demand ({} clears it)",
    )
    def put(self, request: Request, partition: str) -> Response:
        body = body_with(request.data, "queuePath", "resource")
        services.elastic_demand_set(
            partition=partition, queue_path=body["queuePath"], demand=body["resource"]
        )
        return Response(selectors.elastic_view(partition=partition))


class SettingsView(APIView):
    @extend_schema(
        request=inline_serializer("ElasticSettings", {"enabled": serializers.BooleanField()}),
        responses={200: ElasticOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut},
        summary="Turn elastic quota on or off (on: allocations must fit the runtime)",
    )
    def put(self, request: Request, partition: str) -> Response:
        body = body_with(request.data, "enabled")
        services.elastic_settings_update(
            partition=partition, enabled=body["enabled"], author=request.user
        )
        return Response(selectors.elastic_view(partition=partition))


class ExplainView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("queuePath", pattern_string(QUEUE_PATH_PATTERN), required=True),
            OpenApiParameter("resource", {"type": "string", "minLength": 1}, required=True),
        ],
        responses={200: inline_serializer("ElasticExplanation", {
            "queuePath": serializers.CharField(), "resource": serializers.CharField(),
            "runtime": serializers.IntegerField(
                allow_null=True, help_text="null where the root does not share the resource"),
            "steps": serializers.ListField(child=serializers.JSONField()),
        }), 400: ErrorOut, 404: ErrorOut},
        summary="How one queue's runtime of one resource came about, step by step",
    )
    def get(self, request: Request, partition: str) -> Response:
        queue_path = request.query_params.get("queuePath")
        resource = request.query_params.get("resource")
        if not queue_path or not resource:
            raise bad_request(ERR_EXPLAIN_PARAMS)
        return Response(selectors.elastic_explain(
            partition=partition, queue_path=queue_path, resource=resource
        ))


class OverUseView(APIView):
    @extend_schema(
        responses={200: inline_serializer("ElasticOverUse", {
            "queues": serializers.ListField(child=serializers.JSONField()),
        }), 404: ErrorOut},
        summary="Queues above their runtime, since when, and what revocation would pick",
    )
    def get(self, request: Request, partition: str) -> Response:
        return Response({"queues": selectors.elastic_over_use(partition=partition)})


urlpatterns = [
    path("partitions/<str:partition>/elastic", ElasticView.as_view(), name="api-elastic"),
    path("partitions/<str:partition>/elastic/cluster-total", ClusterTotalView.as_view(),
         name="api-elastic-total"),
    path("partitions/<str:partition>/elastic/demand", DemandView.as_view(),
         name="api-elastic-demand"),
    path("partitions/<str:partition>/elastic/settings", SettingsView.as_view(),
         name="api-elastic-settings"),
    path("partitions/<str:partition>/elastic/explain", ExplainView.as_view(),
         name="api-elastic-explain"),
    path("partitions/<str:partition>/elastic/over-use", OverUseView.as_view(),
         name="api-elastic-over-use"),
]

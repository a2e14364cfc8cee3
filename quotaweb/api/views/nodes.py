"""A scheduler's report of a partition's nodes (``PUT /api/v1/partitions/{p}/nodes``): the whole
set at once, replacing the one before. quotaweb admits by quota, not by node; the nodes fill
YuniKorn's node reads, the partition's capacity and the node utilisation
(``quotaweb.allocations.nodes``)."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quotaweb.allocations import nodes
from quotaweb.api.serializers import StrictSerializer
from quotaweb.api.views.allocations import AllocationResourceField, ErrorOut


class NodeIn(StrictSerializer):
    """One node, for the schema (``nodes.nodes_checked`` reads the body)."""

    nodeID = serializers.CharField(max_length=nodes.MAX_TEXT)
    hostName = serializers.CharField(max_length=nodes.MAX_TEXT, required=False,
                                     allow_blank=True)
    rackName = serializers.CharField(max_length=nodes.MAX_TEXT, required=False,
                                     allow_blank=True)
    attributes = serializers.DictField(
        child=serializers.CharField(max_length=nodes.MAX_TEXT, allow_blank=True),
        required=False, help_text=f"at most {nodes.MAX_ATTRIBUTES} name: text pairs",
    )
    capacity = AllocationResourceField(help_text="what the node holds, in base units")
    occupied = AllocationResourceField(
        required=False, help_text="what is in use on the node, in base units (its utilisation)"
    )


class NodesView(APIView):
    @extend_schema(
        request=NodeIn(many=True),
        responses={200: inline_serializer("NodesStored", {"nodes": serializers.IntegerField()}),
                   400: ErrorOut, 404: ErrorOut},
        summary="Report the partition's nodes (replaces the set reported before)",
    )
    def put(self, request: Request, partition: str) -> Response:
        return Response({"nodes": nodes.nodes_replace(partition=partition, data=request.data)})


urlpatterns = [
    path("partitions/<str:partition>/nodes", NodesView.as_view(), name="api-nodes"),
]

"""Quota trees and forests (``/api/v1/quota-trees/``, ``/api/v1/forests/``; api.md "Quota trees
and forests"): tree documents, modes, consumers allocated, tried, undone and released, forests
allocated jointly, and each consumer's story."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quotaweb.api.problems import bad_request, body_with
from quotaweb.api.views.allocations import ErrorOut, ResourceField
from quotaweb.quotatrees import selectors, services
from trackers.quotatree import AllocationResult

ERR_TRY = "try must be 1, true, 0 or false, not {value!r}"

TREE_DOCUMENT = {
    "type": "object",
    "description": (
        'A QuotaTree document: {"kind": "QuotaTree", "metadata": {"name": T}, "spec": '
        '{"resourceNames": [...], "nodes": {N: {"parent": P, "hard": "true|false", '
        '"quota": {resource: "<int>"}}}}}'
    ),
    "required": ["kind", "metadata", "spec"],
    "properties": {
        "kind": {"type": "string", "enum": ["QuotaTree"]},
        "metadata": {"type": "object", "properties": {"name": {"type": "string"}}},
        "spec": {"type": "object"},
    },
}
CONSUMER_DOCUMENT = {
    "type": "object",
    "description": (
        'A Consumer document: {"kind": "Consumer", "spec": {"id": ID, "trees": [{"treeName", '
        '"groupID", "request": {resource: int}, "priority", "type", "unPreemptable"}]}}'
    ),
    "required": ["kind", "spec"],
    "properties": {"kind": {"type": "string", "enum": ["Consumer"]}, "spec": {"type": "object"}},
}


class TreeAllocationIn(serializers.Serializer):
    id = serializers.CharField()
    groupID = serializers.CharField(help_text="the leaf (gNode) the consumer belongs to")
    request = ResourceField()
    priority = serializers.IntegerField(required=False, default=0)
    type = serializers.IntegerField(required=False, default=0)
    unPreemptable = serializers.BooleanField(required=False, default=False)


class AllocatedOut(serializers.Serializer):
    allocated = serializers.BooleanField()
    node = serializers.CharField(allow_null=True)
    nodes = serializers.DictField(child=serializers.CharField())
    preempted = serializers.ListField(child=serializers.CharField())
    forced = serializers.BooleanField()
    trial = serializers.BooleanField()
    explanation = serializers.CharField(help_text="where it landed and whether it borrows")
    steps = serializers.ListField(child=serializers.CharField())


class RejectedOut(serializers.Serializer):
    allocated = serializers.BooleanField()
    error = serializers.CharField()
    code = serializers.CharField()
    message = serializers.CharField(help_text="the quota-manager library's words, for its clients")
    explanation = serializers.CharField(
        help_text="why, in quotaweb's words: which node, which resource, how much short"
    )
    steps = serializers.ListField(child=serializers.CharField())
    details = serializers.ListField(child=serializers.JSONField())


class TreeUpdateOut(serializers.Serializer):
    root = serializers.CharField(allow_null=True)
    dangling = serializers.ListField(child=serializers.CharField())
    unplaced = serializers.ListField(child=serializers.CharField())
    version = serializers.IntegerField()
    created = serializers.BooleanField()


class NodeOut(serializers.Serializer):
    name = serializers.CharField()
    parent = serializers.CharField(allow_null=True)
    hard = serializers.BooleanField()
    quota = ResourceField()
    allocated = ResourceField()
    slack = serializers.DictField(child=serializers.IntegerField(),
                                  help_text="quota minus the children's quotas; may be negative")
    consumers = serializers.ListField(child=serializers.CharField())


class TreeOut(serializers.Serializer):
    name = serializers.CharField()
    mode = serializers.CharField()
    forest = serializers.CharField(allow_null=True)
    resourceNames = serializers.ListField(child=serializers.CharField())
    root = serializers.CharField(allow_null=True)
    version = serializers.IntegerField(allow_null=True)
    generation = serializers.IntegerField()
    nodes = NodeOut(many=True)


MODE_IN = inline_serializer("TreeMode", {"mode": serializers.ChoiceField(
    choices=["normal", "maintenance"])})
TRY_PARAMETER = OpenApiParameter(
    "try", str, required=False, enum=["0", "1", "true", "false"],
    description="1: a trial that .../undo can take back while nothing else changed the trees",
)


def _trial(request: Request) -> bool:
    raw = request.query_params.get("try", "0")
    if raw not in ("0", "1", "true", "false"):
        raise bad_request(ERR_TRY.format(value=raw))
    return raw in ("1", "true")


def _answer(result: AllocationResult) -> Response:
    if not result.allocated:
        return Response({
            "allocated": False, "error": "rejected", "code": result.code,
            "message": result.message, "explanation": result.explanation,
            "steps": result.steps, "details": [],
        }, status=status.HTTP_409_CONFLICT)
    return Response({
        "allocated": True, "node": result.node, "nodes": result.nodes,
        "preempted": result.preempted, "forced": result.forced, "trial": result.trial,
        "explanation": result.explanation, "steps": result.steps,
    }, status=status.HTTP_201_CREATED)


class TreesView(APIView):
    @extend_schema(responses={200: inline_serializer("QuotaTrees", {
        "trees": serializers.ListField(child=serializers.JSONField())})},
        summary="Every quota tree", operation_id="quota_trees_list")
    def get(self, request: Request) -> Response:
        return Response({"trees": selectors.trees_list()})


class TreeView(APIView):
    @extend_schema(responses={200: TreeOut, 404: ErrorOut}, summary="A quota tree, node by node")
    def get(self, request: Request, tree: str) -> Response:
        return Response(selectors.tree_view(tree=tree))

    @extend_schema(
        request={"application/json": TREE_DOCUMENT},
        responses={200: TreeUpdateOut, 201: TreeUpdateOut, 400: ErrorOut},
        summary="Create a tree, or make the document its new version (consumers re-placed)",
    )
    def put(self, request: Request, tree: str) -> Response:
        answer = services.tree_put(tree=tree, document=request.data, author=request.user)
        return Response(answer, status=201 if answer["created"] else 200)

    @extend_schema(responses={204: None, 404: ErrorOut, 409: ErrorOut},
                   summary="Delete a tree (refused while consumers are allocated on it)")
    def delete(self, request: Request, tree: str) -> Response:
        services.tree_delete(tree=tree)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TreeDocumentView(APIView):
    @extend_schema(responses={200: TREE_DOCUMENT, 404: ErrorOut},
                   summary="The tree's active QuotaTree document (export)")
    def get(self, request: Request, tree: str) -> Response:
        return Response(selectors.tree_document(tree=tree))


class TreeModeView(APIView):
    @extend_schema(request=MODE_IN, responses={200: TreeOut, 400: ErrorOut, 404: ErrorOut},
                   summary="Normal (the algorithm) or maintenance (allocations forced)")
    def put(self, request: Request, tree: str) -> Response:
        body = body_with(request.data, "mode")
        services.tree_mode_set(tree=tree, mode=body["mode"])
        return Response(selectors.tree_view(tree=tree))


class TreeAllocationsView(APIView):
    @extend_schema(responses={200: inline_serializer("TreeConsumers", {
        "consumers": serializers.ListField(child=serializers.JSONField())}), 404: ErrorOut},
        summary="The consumers allocated on the tree")
    def get(self, request: Request, tree: str) -> Response:
        return Response({"consumers": selectors.tree_allocations(tree=tree)})

    @extend_schema(
        request=TreeAllocationIn,
        parameters=[TRY_PARAMETER],
        description="The body may also be a Consumer document that names this tree.",
        responses={201: AllocatedOut, 409: RejectedOut, 400: ErrorOut, 404: ErrorOut},
        summary="Allocate a consumer on the tree (borrowing and preemption as the tree allows)",
    )
    def post(self, request: Request, tree: str) -> Response:
        trial = _trial(request)
        return _answer(services.tree_allocate(tree=tree, body=request.data, trial=trial))


class TreeAllocationView(APIView):
    @extend_schema(responses={204: None, 404: ErrorOut},
                   summary="De-allocate a consumer (borrowers may slide down)")
    def delete(self, request: Request, tree: str, consumer: str) -> Response:
        services.tree_release(tree=tree, consumer=consumer)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TreeUndoView(APIView):
    @extend_schema(request=None, responses={204: None, 404: ErrorOut, 409: ErrorOut},
                   summary="Undo the consumer's last trial allocation on the tree, exactly")
    def post(self, request: Request, tree: str, consumer: str) -> Response:
        services.tree_undo(tree=tree, consumer=consumer)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ForestsView(APIView):
    @extend_schema(responses={200: inline_serializer("Forests", {
        "forests": serializers.ListField(child=serializers.JSONField())})},
        summary="Every forest", operation_id="forests_list")
    def get(self, request: Request) -> Response:
        return Response({"forests": selectors.forests_list()})


FOREST_OUT = inline_serializer("Forest", {
    "name": serializers.CharField(), "mode": serializers.CharField(),
    "trees": serializers.ListField(child=serializers.CharField()),
})


class ForestView(APIView):
    @extend_schema(responses={200: FOREST_OUT, 404: ErrorOut}, summary="A forest")
    def get(self, request: Request, forest: str) -> Response:
        return Response(selectors.forest_view(forest=forest))

    @extend_schema(
        request=inline_serializer("ForestIn", {"trees": serializers.ListField(
            child=serializers.CharField())}),
        responses={200: FOREST_OUT, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut},
        summary="Create a forest or replace its trees (processed in this order)",
    )
    def put(self, request: Request, forest: str) -> Response:
        body = body_with(request.data, "trees")
        services.forest_put(forest=forest, trees=body["trees"])
        return Response(selectors.forest_view(forest=forest))

    @extend_schema(responses={204: None, 404: ErrorOut},
                   summary="Forget a forest (its trees and consumers stay)")
    def delete(self, request: Request, forest: str) -> Response:
        services.forest_delete(forest=forest)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ForestModeView(APIView):
    @extend_schema(request=MODE_IN, responses={200: FOREST_OUT, 400: ErrorOut, 404: ErrorOut},
                   summary="Normal or maintenance for joint allocations on the forest")
    def put(self, request: Request, forest: str) -> Response:
        body = body_with(request.data, "mode")
        services.forest_mode_set(forest=forest, mode=body["mode"])
        return Response(selectors.forest_view(forest=forest))


class ForestAllocationsView(APIView):
    @extend_schema(
        request={"application/json": CONSUMER_DOCUMENT}, parameters=[TRY_PARAMETER],
        responses={201: AllocatedOut, 409: RejectedOut, 400: ErrorOut, 404: ErrorOut},
        summary="Allocate a consumer on every tree of the forest, or on none",
    )
    def post(self, request: Request, forest: str) -> Response:
        trial = _trial(request)
        return _answer(services.forest_allocate(forest=forest, body=request.data, trial=trial))


class ForestAllocationView(APIView):
    @extend_schema(responses={204: None, 404: ErrorOut},
                   summary="De-allocate a consumer from every tree of the forest")
    def delete(self, request: Request, forest: str, consumer: str) -> Response:
        services.forest_release(forest=forest, consumer=consumer)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ForestUndoView(APIView):
    @extend_schema(request=None, responses={204: None, 404: ErrorOut, 409: ErrorOut},
                   summary="Undo the consumer's last trial forest allocation, on every tree")
    def post(self, request: Request, forest: str, consumer: str) -> Response:
        services.forest_undo(forest=forest, consumer=consumer)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ConsumerView(APIView):
    @extend_schema(responses={200: inline_serializer("ConsumerStory", {
        "id": serializers.CharField(),
        "placements": serializers.DictField(child=serializers.JSONField()),
        "events": serializers.ListField(child=serializers.JSONField()),
    })}, summary="Where a consumer is allocated and why, and what happened to it")
    def get(self, request: Request, consumer: str) -> Response:
        return Response(selectors.consumer_story(consumer=consumer))


urlpatterns = [
    path("quota-trees", TreesView.as_view(), name="api-trees"),
    path("quota-trees/<str:tree>", TreeView.as_view(), name="api-tree"),
    path("quota-trees/<str:tree>/document", TreeDocumentView.as_view(),
         name="api-tree-document"),
    path("quota-trees/<str:tree>/mode", TreeModeView.as_view(), name="api-tree-mode"),
    path("quota-trees/<str:tree>/allocations", TreeAllocationsView.as_view(),
         name="api-tree-allocations"),
    path("quota-trees/<str:tree>/allocations/<str:consumer>", TreeAllocationView.as_view(),
         name="api-tree-allocation"),
    path("quota-trees/<str:tree>/allocations/<str:consumer>/undo", TreeUndoView.as_view(),
         name="api-tree-undo"),
    path("forests", ForestsView.as_view(), name="api-forests"),
    path("forests/<str:forest>", ForestView.as_view(), name="api-forest"),
    path("forests/<str:forest>/mode", ForestModeView.as_view(), name="api-forest-mode"),
    path("forests/<str:forest>/allocations", ForestAllocationsView.as_view(),
         name="api-forest-allocations"),
    path("forests/<str:forest>/allocations/<str:consumer>", ForestAllocationView.as_view(),
         name="api-forest-allocation"),
    path("forests/<str:forest>/allocations/<str:consumer>/undo", ForestUndoView.as_view(),
         name="api-forest-undo"),
    path("consumers/<str:consumer>", ConsumerView.as_view(), name="api-consumer"),
]

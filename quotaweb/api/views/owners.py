"""Who owns which partition among the ``serve`` peers of a PostgreSQL database
(``GET /api/v1/owners``, viewers and above)."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quotaweb.leases.selectors import owners_view


class OwnersView(APIView):
    @extend_schema(
        responses={200: OpenApiTypes.OBJECT},
        summary="The peers and the owner, epoch and start of each partition's lease",
    )
    def get(self, request: Request) -> Response:
        return Response(owners_view())


urlpatterns = [
    path("owners", OwnersView.as_view(), name="api-owners"),
]

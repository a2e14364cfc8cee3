"""Each query parameter of the API at most once.

Django's ``QueryDict.get`` answers the last of a repeated parameter, so ``PUT /api/v1/config?
dry_run=1&dry_run=0`` was a real write: a client (or a proxy adding a parameter) that meant the
first got the second. No endpoint under ``/api/`` or ``/ws/v1/`` takes a list as repeated
parameters (``groups`` of headroom is one comma-separated value), so a repeated name is refused
(400, naming it) before any view runs, for every endpoint at once; the lean path hands such a
request to Django, which answers it here.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin

API_PREFIXES = ("/api/", "/ws/v1/")
ERR_REPEATED = (
    "query parameter(s) {names} given more than once; give each at most once (nothing was "
    "read or changed)"
)


def repeated_parameters(query: str | bytes) -> list[str]:
    """The names given more than once in ``query``, read as Django reads it (``&`` between
    pairs, names percent-decoded: ``dry_run`` and ``dry%5Frun`` are one name)."""
    if isinstance(query, bytes):
        query = query.decode("latin-1")
    if "&" not in query:
        return []
    seen: set[str] = set()
    repeated: list[str] = []
    pairs = parse_qsl(query, keep_blank_values=True, encoding=settings.DEFAULT_CHARSET,
                      errors="replace", separator="&")
    for name, _value in pairs:
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    return repeated


class RepeatedParametersRefused(MiddlewareMixin):
    """Answers 400 to an API request that repeats a query parameter, in its path's error shape
    (``quotaweb.api.errors``: YuniKorn's under ``/ws/v1/``)."""

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        if not request.path.startswith(API_PREFIXES):
            return None
        names = repeated_parameters(request.META.get("QUERY_STRING", ""))
        if not names:
            return None
        message = ERR_REPEATED.format(names=", ".join(names))
        if request.path.startswith("/ws/v1/"):
            body: dict[str, object] = {
                "status_code": 400, "message": message, "description": message,
            }
        else:
            body = {"error": "bad_request", "message": message, "details": names}
        return JsonResponse(body, status=400)

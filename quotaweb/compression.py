"""Answers compressed with gzip for a client that sends ``Accept-Encoding: gzip``.

Django's ``GZipMiddleware`` does the work: it leaves answers under 200 bytes alone (compressing
them costs more than it saves), keeps a compressed body only when it is shorter, adds
``Vary: Accept-Encoding`` so caches keep the two forms apart, and pads each compressed body with
0 to 99 random bytes against BREACH (docs/deployment.md, "Compression and BREACH"). Three kinds
of answer are left uncompressed here:

- views marked ``uncompressed``: the allocation endpoints, which ``quotaweb.api.lean`` answers
  itself without compressing (an answer must not depend on which of the two paths gave it), and
  the team-links page, which prints every team link's token;
- the Django admin, whose token list prints API tokens beside a search box that echoes its query,
  the pairing BREACH needs.

Static files never reach this middleware: WhiteNoise, above it, answers them itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware

View = TypeVar("View", bound=Callable[..., object])

_MARK = "answers_uncompressed"


def uncompressed(view: View) -> View:
    """Marks ``view`` (a function, or a class view's ``as_view()``) as never compressed."""
    setattr(view, _MARK, True)
    return view


class CompressedAnswers(GZipMiddleware):
    """``GZipMiddleware`` except for the answers the module names."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        match = request.resolver_match
        if match is not None and (getattr(match.func, _MARK, False) or "admin" in match.app_names):
            return response
        return super().process_response(request, response)

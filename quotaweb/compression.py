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

Static files never reach that middleware: WhiteNoise, above it, answers them itself, and
``CompressedStaticFiles`` (WhiteNoise as the settings use it) keeps a gzip copy of each script,
stylesheet and other text file beside the data folder, made when the server starts (or, with
``DEBUG``, when a file changed), so they go compressed to a client that accepts it with no
``collectstatic`` or build step. A copy is remade when its file is newer, and written whole
before it replaces the old one, so servers starting together never serve half a file.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from wsgiref.headers import Headers

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from whitenoise.middleware import WhiteNoiseMiddleware
from whitenoise.responders import StaticFile

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


# Text files worth compressing; images and fonts are compressed already.
COMPRESSIBLE = (".js", ".mjs", ".css", ".svg", ".json", ".map", ".txt", ".html", ".xml",
                ".webmanifest")
# As GZipMiddleware: below this, a compressed copy costs more than it saves.
SMALLEST = 200


def static_copy(path: str) -> str | None:
    """The gzip copy of the static file at ``path`` (made or remade when older than the file),
    or None when the file is not text or compresses to nothing smaller."""
    if not path.endswith(COMPRESSIBLE):
        return None
    source = Path(path)
    stat = source.stat()
    if stat.st_size < SMALLEST:
        return None
    folder = Path(settings.DATA_DIR) / "static-gz"
    name = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:32]
    copy = folder / f"{name}{source.suffix}.gz"
    if copy.exists() and copy.stat().st_mtime >= stat.st_mtime:
        return str(copy) if copy.stat().st_size else None
    body = source.read_bytes()
    # mtime=0: the same file gives the same bytes, in every process that makes it.
    packed = gzip.compress(body, compresslevel=9, mtime=0)
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f"{name}.{os.getpid()}.part"
    # An empty copy stands for "not worth it", so the file is not compressed at every start.
    partial.write_bytes(packed if len(packed) < len(body) else b"")
    os.replace(partial, copy)
    return str(copy) if len(packed) < len(body) else None


class CompressedStaticFiles(WhiteNoiseMiddleware):
    """WhiteNoise, offering each text file's gzip copy (``static_copy``) to clients that accept
    it; WhiteNoise then answers with ``Content-Encoding: gzip`` and ``Vary: Accept-Encoding``."""

    def get_static_file(
        self, path: str, url: str, stat_cache: dict[str, Any] | None = None
    ) -> StaticFile:
        copy = static_copy(path)
        if copy is None:
            return super().get_static_file(path, url, stat_cache)
        headers = Headers([])
        self.add_mime_headers(headers, path, url)
        self.add_cache_headers(headers, path, url)
        if self.allow_all_origins:
            headers["Access-Control-Allow-Origin"] = "*"
        if self.add_headers_function is not None:
            self.add_headers_function(headers, path, url)
        stats = {path: os.stat(path), copy: os.stat(copy)}
        return StaticFile(path, headers.items(), stat_cache=stats, encodings={"gzip": copy})

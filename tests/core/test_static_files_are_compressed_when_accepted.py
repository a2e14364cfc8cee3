"""Scripts and stylesheets go gzip-compressed to a client that accepts it, straight from
static/ with no collectstatic step (quotaweb.compression.CompressedStaticFiles), and plain to
one that does not; a file changed on disk gets a fresh copy, never the old one."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from quotaweb.compression import static_copy

STATIC = Path(settings.BASE_DIR) / "static"


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.parametrize("url", ["/static/js/live.js", "/static/css/app.css",
                                 "/static/js/usage-tree.js"])
def test_text_files_come_compressed_to_who_accepts_it(client: Client, url: str):
    plain = client.get(url)
    packed = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert packed.headers["Content-Type"] == plain.headers["Content-Type"]
    body, text = _body(packed), _body(plain)
    assert int(packed.headers["Content-Length"]) == len(body) < len(text)
    assert gzip.decompress(body) == text == (STATIC / url.removeprefix("/static/")).read_bytes()


def test_a_changed_file_gets_a_fresh_copy(tmp_path):
    script = tmp_path / "thing.js"
    script.write_text("const a = 1;\n" * 100)
    first = static_copy(str(script))
    assert first is not None
    assert gzip.decompress(Path(first).read_bytes()) == script.read_bytes()
    script.write_text("const b = 2;\n" * 100)
    later = os.stat(first).st_mtime + 5
    os.utime(script, (later, later))
    again = static_copy(str(script))
    assert gzip.decompress(Path(again).read_bytes()) == script.read_bytes()


def test_images_and_tiny_files_are_left_plain(tmp_path):
    tiny = tmp_path / "tiny.css"
    tiny.write_text("a{}")
    picture = tmp_path / "picture.png"
    picture.write_bytes(b"\\x89PNG" * 100)
    assert static_copy(str(tiny)) is None
    assert static_copy(str(picture)) is None

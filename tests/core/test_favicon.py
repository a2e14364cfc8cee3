"""Browsers ask every site for /favicon.ico: quotaweb answers with its icon, and pages name it."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_favicon_is_served_as_an_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    # An ICO header: reserved 0, type 1 (icon), at least one image.
    assert body[:4] == b"\x00\x00\x01\x00"
    assert int.from_bytes(body[4:6], "little") >= 1


def test_pages_link_the_icon(client):
    html = client.get("/accounts/login/").content.decode()
    assert '<link rel="icon" href="/favicon.ico"' in html

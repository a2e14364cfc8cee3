"""Pages and JSON reads come back gzip-compressed to a client that accepts it, and plain to one
that does not, with ``Vary: Accept-Encoding`` either way and every security header kept. Answers
under 200 bytes, the allocation endpoints (on the lean path and in the views alike), the
team-links page and the Django admin, which print tokens, are never compressed
(quotaweb.compression)."""

from __future__ import annotations

import asyncio
import gzip
import json
import re

import pytest

from quotaweb.teams.services import team_link_create
from tests.api.allocation_support import ALLOCATIONS, asgi_exchange, body, token_of
from tests.personas import token_client
from tests.usage.pages import engines_busy

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}
SECURITY_HEADERS = ("Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options",
                    "Referrer-Policy", "Cross-Origin-Opener-Policy")
# What differs between two answers of one page: Django masks the CSRF token afresh in each, and
# live pages print the time they were drawn at.
CHANGING = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]+"|as of \d\d:\d\d:\d\d')


def _same_each_time(content: bytes) -> bytes:
    return CHANGING.sub(b"-", content)


def _vary(response) -> list[str]:
    return [name.strip().lower() for name in response.headers.get("Vary", "").split(",")]


def _assert_compressed(plain, compressed) -> bytes:
    """The compressed answer's body, decompressed, after checking both answers' headers."""
    assert plain.status_code == compressed.status_code == 200
    assert "Content-Encoding" not in plain.headers
    assert compressed.headers["Content-Encoding"] == "gzip"
    assert "accept-encoding" in _vary(plain)
    assert "accept-encoding" in _vary(compressed)
    assert int(compressed.headers["Content-Length"]) == len(compressed.content)
    assert len(compressed.content) < len(plain.content)
    assert compressed.headers["Content-Type"] == plain.headers["Content-Type"]
    return gzip.decompress(compressed.content)


@pytest.fixture
def busy(db):
    return engines_busy()


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/usage/default/", "/config/"])
def test_a_page_is_compressed_when_accepted_and_reads_the_same(quota_admin_client, busy, path):
    plain = quota_admin_client.get(path)
    compressed = quota_admin_client.get(path, **GZIP)
    page = _assert_compressed(plain, compressed)
    assert _same_each_time(page) == _same_each_time(plain.content)
    for header in SECURITY_HEADERS:
        assert compressed.headers[header] == plain.headers[header], header


@pytest.mark.django_db
@pytest.mark.parametrize("path", [
    "/ws/v1/partition/default/queues", "/ws/v1/partition/default/usage/users",
    "/api/v1/partitions/default/queues/", "/api/schema/?format=json",
])
def test_a_json_read_is_compressed_when_accepted_and_reads_the_same(viewer_token, busy, path):
    plain = viewer_token.get(path)
    compressed = viewer_token.get(path, **GZIP)
    assert json.loads(_assert_compressed(plain, compressed)) == json.loads(plain.content)
    assert compressed.headers["Content-Security-Policy"] == plain.headers["Content-Security-Policy"]


@pytest.mark.django_db
@pytest.mark.parametrize("accept", ["identity", "br", "deflate"])
def test_a_client_that_does_not_ask_for_gzip_gets_the_page_plain(quota_admin_client, busy,
                                                                 accept):
    response = quota_admin_client.get("/", HTTP_ACCEPT_ENCODING=accept)
    assert "Content-Encoding" not in response.headers
    assert b"<html" in response.content


@pytest.mark.django_db
def test_a_small_answer_is_not_compressed(viewer_token, busy):
    response = viewer_token.get("/api/v1/no-such-thing", **GZIP)
    assert response.status_code == 404
    assert len(response.content) < 200
    assert "Content-Encoding" not in response.headers
    assert "accept-encoding" not in _vary(response)


@pytest.mark.django_db
def test_pages_that_print_tokens_are_never_compressed(
    quota_admin_client, admin_client, admin, busy
):
    link = team_link_create(partition="default", kind="group", name="ml", author=admin)
    links = quota_admin_client.get("/teams/", **GZIP)
    assert link.token.encode() in links.content
    token_client(admin)
    # The admin's token list echoes its search beside the tokens it finds.
    token_list = admin_client.get("/admin/authtoken/tokenproxy/?q=ada", **GZIP)
    assert b"ada" in token_list.content
    for response in (links, token_list):
        assert response.status_code == 200
        assert len(response.content) > 200
        assert "Content-Encoding" not in response.headers


def _exchange(app, method: str, path: str, token: str, data: object = None,
              accept: bytes | None = None) -> tuple:
    headers = () if accept is None else ((b"accept-encoding", accept),)
    return asyncio.run(asgi_exchange(app, method, path, token=token, data=data, headers=headers))


@pytest.mark.django_db(transaction=True)
def test_allocation_answers_are_the_same_with_or_without_gzip_on_both_paths(admin,
                                                                         capped_engines):
    from quotaweb.asgi import application, django_asgi_app

    token = token_of(admin)
    batch = {"operations": [
        {"op": "allocate", **body("b1")}, {"op": "release", "allocationKey": "missing"},
        {"op": "bogus"},
    ]}
    answers = []
    for app in (application, django_asgi_app):
        for accept in (None, b"gzip, deflate"):
            allocated = _exchange(app, "POST", ALLOCATIONS, token, body("k1"), accept)
            released = _exchange(app, "DELETE", f"{ALLOCATIONS}/k1", token, accept=accept)
            batched = _exchange(app, "POST", f"{ALLOCATIONS}/batch", token, batch, accept)
            _exchange(app, "DELETE", f"{ALLOCATIONS}/b1", token)
            answers.append((allocated, released, batched))
    assert [answer[0] for answer in answers[0]] == [201, 204, 200]
    # Long enough that the middleware would have compressed it, were it not left alone.
    assert len(answers[0][2][2]) >= 200
    assert all(answer == answers[0] for answer in answers)
    assert b"content-encoding" not in answers[0][2][1]


@pytest.mark.django_db(transaction=True)
def test_the_served_application_compresses_a_read_as_the_test_client_sees_it(viewer,
                                                                              capped_engines):
    from quotaweb.asgi import application

    path = "/ws/v1/partition/default/queues"
    status, plain_headers, plain = _exchange(application, "GET", path, token_of(viewer))
    status_gzip, headers, compressed = _exchange(application, "GET", path, token_of(viewer),
                                                 accept=b"gzip")
    assert status == status_gzip == 200
    assert b"content-encoding" not in plain_headers
    assert headers[b"content-encoding"] == b"gzip"
    assert int(headers[b"content-length"]) == len(compressed) < len(plain)
    assert json.loads(gzip.decompress(compressed)) == json.loads(plain)


"""A live socket opens only from this site's own origin (scheme, host and port, as Django's CSRF
check compares them) or from one in CSRF_TRUSTED_ORIGINS; another port or scheme of the same host
is another site, and a handshake without an Origin is refused."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

SITE_HOST = b"127.0.0.1:8101"


@pytest.fixture
def token(admin, capped_engines):
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=admin).key


async def _opens(token: str, *headers: tuple[bytes, bytes], scheme: str = "ws") -> bool:
    from quotaweb.asgi import application

    socket = WebsocketCommunicator(
        application, f"/ws/usage/default/?token={token}", headers=list(headers)
    )
    socket.scope["scheme"] = scheme
    connected, _ = await socket.connect(timeout=5)
    # A refused socket's consumer still runs (its channel layer receive too) until told the
    # client is gone: left to the event loop's end, many receives of the Redis layer were
    # cancelled at once, and one of them could hang the teardown.
    await socket.disconnect()
    return connected


@pytest.mark.parametrize("origin", [
    b"http://127.0.0.1:9999",  # another port
    b"https://127.0.0.1:8101",  # another scheme
    b"https://localhost",  # another host, scheme and port
    b"http://127.0.0.1",  # the default port is another port
    b"null",
])
async def test_another_origin_of_the_same_host_is_refused(token, origin):
    assert not await _opens(token, (b"host", SITE_HOST), (b"origin", origin))


async def test_the_sites_own_origin_opens(token):
    assert await _opens(token, (b"host", SITE_HOST), (b"origin", b"http://127.0.0.1:8101"))


async def test_a_tls_socket_wants_an_https_origin(token):
    https = (b"origin", b"https://127.0.0.1:8101")
    assert await _opens(token, (b"host", SITE_HOST), https, scheme="wss")
    assert not await _opens(token, (b"host", SITE_HOST), https)


async def test_behind_a_tls_proxy_the_forwarded_scheme_counts(token, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    forwarded = (b"x-forwarded-proto", b"https")
    assert await _opens(token, (b"host", SITE_HOST), forwarded, (b"origin", b"https://127.0.0.1:8101"))
    assert not await _opens(token, (b"host", SITE_HOST), forwarded, (b"origin", b"http://127.0.0.1:8101"))


async def test_a_host_outside_allowed_hosts_has_no_origin_of_its_own(token):
    host = (b"host", b"evil.example:8101")
    assert not await _opens(token, host, (b"origin", b"http://evil.example:8101"))


async def test_csrf_trusted_origins_open(token, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://quota.example.com", "https://*.corp.example"]
    site = (b"host", SITE_HOST)
    assert await _opens(token, site, (b"origin", b"https://quota.example.com"))
    assert await _opens(token, site, (b"origin", b"https://tools.corp.example"))
    assert not await _opens(token, site, (b"origin", b"http://quota.example.com"))
    assert not await _opens(token, site, (b"origin", b"https://quota.example.com:8443"))
    assert not await _opens(token, site, (b"origin", b"https://corp.example.evil"))


async def test_a_handshake_without_an_origin_is_refused(token):
    assert not await _opens(token, (b"host", SITE_HOST))

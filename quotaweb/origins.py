"""Which pages may open a websocket: the rule of Django's CSRF origin check, for sockets.

A browser sends its page's origin with every websocket handshake and lets any page connect to
any server; the server's check is what stops another site's page from opening a live socket
with the visitor's session cookie (cross-site websocket hijacking). Channels'
``AllowedHostsOriginValidator`` compares only the origin's host with ``ALLOWED_HOSTS``, so
``http://127.0.0.1:9999`` or ``https://localhost`` passed for a site served at
``http://127.0.0.1:8101``. Here, as ``CsrfViewMiddleware`` does for a form post, an origin is
accepted only when it is

- the socket's own origin: scheme (``ws`` is ``http``, ``wss`` is ``https``; behind a proxy
  ``SECURE_PROXY_SSL_HEADER`` says which), host and port from the Host header, which must itself
  be in ``ALLOWED_HOSTS``; or
- listed in ``CSRF_TRUSTED_ORIGINS`` (exactly, or as ``https://*.example.com`` for subdomains).

A handshake without an Origin header is refused: browsers always send one, and a script (which
can send any header) names the site's origin as the tests do. Settings are read per handshake.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import is_same_domain, split_domain_port, validate_host

# Under DEBUG with ALLOWED_HOSTS empty, Django itself accepts these (HttpRequest.get_host).
DEBUG_HOSTS = [".localhost", "127.0.0.1", "[::1]"]
DEFAULT_PORTS = {"http": "80", "https": "443"}


def _header(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            try:
                return value.decode("latin1")
            except UnicodeDecodeError:
                return None
    return None


def _scheme(scope: dict) -> str:
    """``https`` or ``http``, as ``HttpRequest.is_secure`` would say for this handshake."""
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy_header:
        name, secure_value = proxy_header
        # HTTP_X_FORWARDED_PROTO is the header x-forwarded-proto.
        header = name.removeprefix("HTTP_").lower().replace("_", "-").encode("latin1")
        value = _header(scope, header)
        if value is not None:
            return "https" if value.split(",")[0].strip() == secure_value else "http"
    return "https" if scope.get("scheme") in ("wss", "https") else "http"


def _host(scope: dict, scheme: str) -> str | None:
    """The Host header (or the server's address without one) if ``ALLOWED_HOSTS`` allows it."""
    host = _header(scope, b"host")
    if host is None and scope.get("server"):
        name, port = scope["server"][0], str(scope["server"][1])
        host = name if port == DEFAULT_PORTS[scheme] else f"{name}:{port}"
    if not host:
        return None
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = DEBUG_HOSTS
    domain, _ = split_domain_port(host.lower())
    return host.lower() if domain and validate_host(domain, allowed) else None


def _trusted(origin: str) -> bool:
    trusted = settings.CSRF_TRUSTED_ORIGINS
    if origin in trusted:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return any(
        is_same_domain(parts.netloc, urlsplit(entry).netloc[len("*"):])
        for entry in trusted
        if "*" in entry and urlsplit(entry).scheme == parts.scheme
    )


def websocket_origin_allowed(*, scope: dict) -> bool:
    """Whether the handshake in ``scope`` comes from a page of this site (see the module)."""
    origin = _header(scope, b"origin")
    if not origin:
        return False
    scheme = _scheme(scope)
    host = _host(scope, scheme)
    if host is not None and origin.lower() == f"{scheme}://{host}":
        return True
    return _trusted(origin)


class SameOriginValidator:
    """ASGI middleware: a websocket whose Origin is not this site's is refused at the handshake
    (HTTP 403), before any consumer runs."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not websocket_origin_allowed(scope=scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)

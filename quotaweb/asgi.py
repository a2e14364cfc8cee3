"""ASGI entry point: HTTP through Django (the allocation hot path through ``api.lean`` first),
websockets through Channels.

Importing this module creates no engine. The process that serves it must create the engines
first (``python manage.py demo`` does); until then /healthz answers 503 "starting".
"""

import os
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.db import close_old_connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quotaweb.settings")

# Set up Django before anything imports models (Channels' auth middleware does).
django.setup(set_prefix=False)


class PooledASGIHandler(ASGIHandler):
    """Django's ASGI handler, running each request's middleware and view in one hop to a small
    pool of long-lived threads.

    Every middleware and view of quotaweb's HTTP side is synchronous. Django's stock handler
    runs the middleware chain in async mode (about 30 thread crossings per request, 2.5 ms of a
    3 ms trivial request) and gives each request a new thread, hence a new database connection
    (1 ms for SQLite, whose Django connection registers dozens of SQL functions). Here a request
    crosses once, to a thread that keeps its connection between requests; connections are
    checked before and after each request as Django's request signals would. Streaming bodies
    are not used by these views. The websocket side, in Channels, is unaffected.
    """

    def __init__(self) -> None:
        super().__init__()
        self.pool = ThreadPoolExecutor(
            max_workers=settings.QUOTAWEB_HTTP_THREADS, thread_name_prefix="http"
        )

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django serves HTTP here, not {scope['type']}")
        await self.handle(scope, receive, send)

    async def get_response_async(self, request):
        return await sync_to_async(
            self._get_response_pooled, thread_sensitive=False, executor=self.pool
        )(request)

    def _get_response_pooled(self, request):
        close_old_connections()
        try:
            return self.get_response(request)
        finally:
            close_old_connections()


django_asgi_app = PooledASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from quotaweb.api.lean import LeanAllocations  # noqa: E402
from quotaweb.origins import SameOriginValidator  # noqa: E402
from quotaweb.routing import websocket_urlpatterns  # noqa: E402

# A scheduler's allocate, release, batch and headroom calls skip the request stack (the server
# turns on its allocates on the event loop: ``quotaweb.core.serving.serve``).
lean_allocations = LeanAllocations(django_asgi_app, executor=django_asgi_app.pool)

application = ProtocolTypeRouter(
    {
        "http": lean_allocations,
        # Only this site's pages (scheme, host and port) or CSRF_TRUSTED_ORIGINS: quotaweb.origins.
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

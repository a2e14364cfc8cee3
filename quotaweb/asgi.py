"""ASGI entry point: HTTP through Django, websockets through Channels.

Importing this module creates no engine. The process that serves it must create the engines
first (``python manage.py demo`` does); until then /healthz answers 503 "starting".
"""

import os

import django
from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "quotaweb.settings")

# Set up Django before anything imports models (Channels' auth middleware does).
django.setup(set_prefix=False)


class OneHopASGIHandler(ASGIHandler):
    """Django's ASGI handler with the middleware chain and the view run in one worker-thread hop.

    Every middleware and view of quotaweb's HTTP side is synchronous. Django's async chain calls
    each middleware's hooks through ``sync_to_async``: about 30 thread crossings per request,
    2.5 ms of the 3 ms a trivial request took. Run synchronously end to end, a request crosses
    once (the websocket side, in Channels, is unaffected).
    """

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def get_response_async(self, request):
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)


django_asgi_app = OneHopASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from quotaweb.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

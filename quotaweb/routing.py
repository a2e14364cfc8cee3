"""Websocket routes: the live usage socket of each partition."""

from django.urls import path

from quotaweb.usage.consumers import UsageConsumer

websocket_urlpatterns = [
    path("ws/usage/<str:partition>/", UsageConsumer.as_asgi()),
]

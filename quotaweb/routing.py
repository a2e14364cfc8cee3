"""Websocket routes. Empty for now; the live usage consumers add theirs here."""

websocket_urlpatterns: list = []

"""A team link is its token, and a socket may carry an API or link token as ``?token=``: neither
ever reaches a log. Django's records (a bad link's "Not Found" line) and the server's access log
show each as its first characters and ``***``."""

from __future__ import annotations

import asyncio
import io
import logging
import secrets

import pytest
from django.urls import reverse

from quotaweb.redaction import MASK, SHOWN
from quotaweb.teams.services import team_link_create
from tests.configs import CAPPED_YAML
from tests.server_process import ServerProcess, free_port
from tests.ws_client import WebSocket


@pytest.fixture
def console():
    """What the site's console handler writes, for the length of a test."""
    handler = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    stream = io.StringIO()
    previous = handler.setStream(stream)
    yield stream
    handler.setStream(previous)


@pytest.mark.django_db
def test_django_logs_mask_team_links_and_tokens(client, admin, capped_engines, console, caplog):
    link = team_link_create(partition="default", kind="group", name="ml", author=admin)
    bad = secrets.token_urlsafe(32)
    with caplog.at_level(logging.DEBUG):
        assert client.get(reverse("team-dashboard", args=[link.token])).status_code == 200
        assert client.get(reverse("team-dashboard", args=[bad])).status_code == 404
        assert client.get(f"/no-such-page/?token={bad}").status_code == 404
    written = console.getvalue()
    records = "\n".join(record.getMessage() for record in caplog.records)
    for text in (written, records):
        assert f"Not Found: /team/{bad[:SHOWN]}{MASK}/" in text
        assert link.token not in text
        assert bad not in text


def test_the_access_log_masks_team_links_and_tokens(tmp_path):
    link_token, bad, api_token = (secrets.token_urlsafe(32) for _ in range(3))
    with ServerProcess(tmp_path, free_port(), config_yaml=CAPPED_YAML).running() as server:
        server.manage("shell", "-c", (
            "from quotaweb.accounts.models import TeamLink; "
            f"TeamLink.objects.create(token={link_token!r}, partition='default', "
            "kind='group', name='ml')"
        ))
        for path, status in (
            (f"/team/{link_token}/?kiosk=1", 200), (f"/team/{bad}/", 404),
            (f"/ws/v1/partitions?token={api_token}", 401),
        ):
            connection = server.connection()
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            connection.close()
            assert response.status == status, path

        async def socket_handshake() -> None:
            socket_ = await WebSocket.connect(
                "127.0.0.1", server.port, f"/ws/usage/default/?token={link_token}",
                origin=f"http://127.0.0.1:{server.port}",
            )
            socket_.close()

        asyncio.run(socket_handshake())
        log = server.log_text()
    assert f'"GET /team/{link_token[:SHOWN]}{MASK}/?kiosk=1" 200' in log
    assert f'"GET /team/{bad[:SHOWN]}{MASK}/" 404' in log
    assert f"token={api_token[:SHOWN]}{MASK}" in log
    assert "WSCONNECT /ws/usage/default/" in log
    for secret in (link_token, bad, api_token):
        assert secret not in log

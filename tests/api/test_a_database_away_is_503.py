"""The database away, slow or busy is a 503 with Retry-After and a body that says so, on every
path (the lean path, the views, pages), never a 500; and the allocation it stopped is undone.
A bug stays a 500. The real outages (a frozen and a stopped PostgreSQL) are in
tests/core/test_database_faults.py."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time

import psycopg
import pytest
from django.db import OperationalError
from psycopg_pool import PoolTimeout

from tests.api.allocation_support import ALLOCATIONS, asgi_exchange, body, token_of

pytestmark = pytest.mark.django_db(transaction=True)


def _wrapped(cause: Exception) -> OperationalError:
    """What Django raises for a driver's error: its own, carrying the driver's as the cause."""
    error = OperationalError(str(cause))
    error.__cause__ = cause
    return error


AWAY = [
    _wrapped(psycopg.OperationalError("server closed the connection unexpectedly")),
    _wrapped(psycopg.errors.QueryCanceled("canceling statement due to statement timeout")),
    _wrapped(PoolTimeout("couldn't get a connection after 2.00 sec")),
    _wrapped(psycopg.InterfaceError("the connection is closed")),
    _wrapped(sqlite3.OperationalError("database is locked")),
]


@pytest.mark.parametrize("error", AWAY, ids=lambda error: type(error.__cause__).__name__)
def test_each_kind_of_database_outage_is_a_503_on_the_lean_path_and_the_views(
    error, admin, capped_engines, monkeypatch
):
    from quotaweb.allocations import services
    from quotaweb.api.problems import ERR_DATABASE_UNAVAILABLE
    from quotaweb.asgi import application, django_asgi_app

    token = token_of(admin)
    attempts = []

    def away(partition):
        def write(stored, deleted):
            attempts.append(partition)
            raise error
        return write

    monkeypatch.setattr(services, "_ledger_write", away)
    for app in (application, django_asgi_app):
        status, headers, content = asyncio.run(
            asgi_exchange(app, "POST", ALLOCATIONS, token=token, data=body("a"))
        )
        answer = json.loads(content)
        assert status == 503
        assert headers[b"retry-after"] == b"2"
        assert answer["error"] == "database_unavailable"
        reason = str(error.__cause__).splitlines()[0]
        assert answer["message"] == ERR_DATABASE_UNAVAILABLE.format(reason=reason, seconds=2)
        assert capped_engines.live_count("default") == 0
    # The lean path answered itself: the views did not try the write a second time.
    assert attempts == ["default", "default"]


def test_no_pooled_connection_in_time_is_a_503_before_the_engine_changes(
    admin, capped_engines, monkeypatch
):
    from quotaweb.allocations import services
    from quotaweb.asgi import application

    token = token_of(admin)

    def no_connection():
        raise _wrapped(PoolTimeout("couldn't get a connection after 2.00 sec"))

    monkeypatch.setattr(services, "_connected", no_connection)
    status, headers, content = asyncio.run(
        asgi_exchange(application, "DELETE", ALLOCATIONS + "/a", token=token)
    )

    assert (status, headers[b"retry-after"]) == (503, b"2")
    assert json.loads(content)["error"] == "database_unavailable"


def test_a_partition_busy_past_the_bound_is_a_503(admin, capped_engines, settings):
    from quotaweb.asgi import django_asgi_app

    settings.QUOTAWEB_DB_STATEMENT_TIMEOUT_MS = 200
    token = token_of(admin)
    slot = capped_engines._slot("default")
    holder_done = []

    def hold() -> None:
        with slot.lock:
            time.sleep(1.5)
        holder_done.append(True)

    holder = threading.Thread(target=hold)
    holder.start()
    time.sleep(0.1)
    status, headers, content = asyncio.run(
        asgi_exchange(django_asgi_app, "POST", ALLOCATIONS, token=token, data=body("a"))
    )
    answered_while_held = not holder_done
    holder.join()

    assert answered_while_held
    assert (status, headers[b"retry-after"]) == (503, b"2")
    assert "is busy" in json.loads(content)["message"]
    assert capped_engines.live_count("default") == 0


def test_a_bug_is_still_a_500(admin, capped_engines, monkeypatch):
    from quotaweb.allocations import services
    from quotaweb.asgi import application

    def broken(partition):
        def write(stored, deleted):
            raise _wrapped(sqlite3.OperationalError("no such table: allocations_allocation"))
        return write

    monkeypatch.setattr(services, "_ledger_write", broken)
    status, headers, content = asyncio.run(
        asgi_exchange(application, "POST", ALLOCATIONS, token=token_of(admin), data=body("a"))
    )

    assert status == 500
    assert b"retry-after" not in headers
    assert json.loads(content)["error"] == "internal"


def test_a_page_whose_database_is_away_is_a_503_page(client, admin, gateway, monkeypatch):
    from django.test import Client

    from quotaweb.core import selectors

    def away():
        raise _wrapped(psycopg.OperationalError("connection refused"))

    browser = Client(raise_request_exception=False)
    browser.force_login(admin)
    monkeypatch.setattr(selectors, "partition_overviews", away)
    response = browser.get("/")

    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    page = response.content.decode()
    assert "The database is unavailable" in page
    assert "connection refused" in page


@pytest.mark.parametrize(("path", "field"), [("/api/v1/x", "error"), ("/ws/v1/x", "status_code")])
def test_an_outage_no_view_answered_is_a_503_in_the_paths_json_shape(path, field):
    from django.test import RequestFactory

    from quotaweb.core import views

    try:
        raise _wrapped(psycopg.OperationalError("connection refused"))
    except OperationalError:
        answer = views.server_error(RequestFactory().get(path))

    assert (answer.status_code, answer["Retry-After"]) == (503, "2")
    assert json.loads(answer.content)[field] in ("database_unavailable", 503)


def test_sqlite_locked_by_another_writer_past_its_busy_timeout_is_a_503(
    admin, capped_engines, monkeypatch
):
    """A real lock: another process's write transaction holds SQLite's one write lock past the
    busy timeout (QUOTAWEB_SQLITE_BUSY_TIMEOUT_MS)."""
    from django.db import connection
    from rest_framework.test import APIClient

    if connection.vendor != "sqlite":
        pytest.skip("SQLite's busy timeout")
    token = token_of(admin)
    connection.close()
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "timeout", 0.2)
    other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        response = APIClient().post(
            ALLOCATIONS, body("a"), format="json", HTTP_AUTHORIZATION=f"Token {token}"
        )
    finally:
        other.execute("ROLLBACK")
        other.close()
        connection.close()

    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    assert response.json()["message"].startswith("the database is unavailable (database is locked)")
    assert capped_engines.live_count("default") == 0

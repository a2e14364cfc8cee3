"""A refused request is logged as one line: no traceback, and not once per handler (debug mode
used to print two full tracebacks for every 403)."""

from __future__ import annotations

import logging

import pytest
from django.conf import settings

from quotaweb.accounts.decorators import ERR_ADMIN_ONLY

pytestmark = pytest.mark.django_db


def test_a_403_is_one_line_without_a_traceback(viewer_client, caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = viewer_client.get("/teams/")
    assert response.status_code == 403
    assert ERR_ADMIN_ONLY.format(username="vera") in response.content.decode()
    records = [r for r in caplog.records if r.name == "django.request"]
    assert [(r.levelname, r.getMessage()) for r in records] == [
        ("WARNING", "Forbidden (Permission denied): /teams/")
    ]
    assert records[0].exc_info is None
    assert "Traceback" not in caplog.text


def test_only_the_site_handler_prints_django_records():
    # Django's default config hands "django" a console handler of its own in debug mode.
    assert logging.getLogger("django").handlers == []
    assert settings.LOGGING["root"]["handlers"] == ["console"]


def test_a_server_error_keeps_its_traceback(caplog):
    logger = logging.getLogger("django.request")
    try:
        raise RuntimeError("boom")
    except RuntimeError as error:
        with caplog.at_level(logging.ERROR, logger="django.request"):
            logger.error("Internal Server Error: /", exc_info=error, extra={"status_code": 500})
    assert caplog.records[-1].exc_info is not None
    assert "Traceback" in caplog.text

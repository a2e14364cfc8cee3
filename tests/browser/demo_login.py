"""A browser page logged in to a server process (``manage.py demo``) with one of the demo's
accounts, through the login form as a person would."""

from __future__ import annotations

from quotaweb.accounts.services import (
    DEMO_ADMIN_PASSWORD_DEFAULT,
    DEMO_ADMIN_USERNAME,
    DEMO_VIEWER_PASSWORD_DEFAULT,
    DEMO_VIEWER_USERNAME,
)
from tests.server_process import ServerProcess

ADMIN = (DEMO_ADMIN_USERNAME, DEMO_ADMIN_PASSWORD_DEFAULT)
VIEWER = (DEMO_VIEWER_USERNAME, DEMO_VIEWER_PASSWORD_DEFAULT)


def log_in(page, server: ServerProcess, *, who: tuple[str, str], then: str = "/") -> None:
    """Log in as ``who`` (``ADMIN`` or ``VIEWER``) and land on ``then``."""
    page.goto(server.url(f"/accounts/login/?next={then}"))
    page.get_by_label("Username").fill(who[0])
    page.get_by_label("Password").fill(who[1])
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(server.url(then))

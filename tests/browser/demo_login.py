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


def page_signed_in(browser, server: ServerProcess, *, axe_script, viewport: dict, path: str):
    """A page of a fresh context of ``viewport``'s size, with axe-core loaded and the demo's
    admin signed in, at ``path``."""
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(15_000)
    context.add_init_script(path=axe_script)
    page = context.new_page()
    log_in(page, server, who=ADMIN, then=path)
    return page

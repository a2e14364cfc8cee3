"""Playwright driving Debian's chromium (its own browser download cannot work here).

Browser tests are marked ``browser`` and run as their own pytest invocation (``bin/test`` does it
after the rest): Playwright's sync API runs an event loop in the test thread, so Django's ORM
needs DJANGO_ALLOW_ASYNC_UNSAFE there, which must not leak into the other tests.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    # Without these chromium keeps calling out to a network this machine does not have.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = os.environ.get("QUOTAWEB_CHROMIUM") or shutil.which("chromium")
    if path:
        return path
    message = (
        "Debian's chromium is not installed (apt-get install -y chromium, or set QUOTAWEB_CHROMIUM)"
    )
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


@pytest.fixture
def log_in(page, live_server):
    """Log ``user`` in through the login form, as a person would."""
    from tests.personas import PERSONA_PASSWORD

    def log_in_as(user) -> None:
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(user.username)
        page.get_by_label("Password").fill(PERSONA_PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_load_state()

    return log_in_as


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory):
    """A real ``manage.py demo`` (websockets need it; the test live server has none) with the
    usage pages' config, for the tests of one module."""
    from tests.configs import PAGES_YAML
    from tests.server_process import ServerProcess, free_port

    with ServerProcess(
        tmp_path_factory.mktemp("demo"), free_port(), config_yaml=PAGES_YAML
    ).running() as process:
        yield process


@pytest.fixture(scope="session")
def shots(tmp_path_factory) -> Path:
    """One folder for every screenshot a browser test takes, for people to look at (nothing
    compares them); pytest prints where, and keeps the last few sessions' folders."""
    folder = tmp_path_factory.mktemp("screenshots")
    print(f"screenshots in {folder}")
    return folder


AXE_PACKAGE = "axe-core"


@pytest.fixture(scope="session")
def axe_script() -> Path:
    """axe-core's browser build at the version package.json pins (tests/node_packages.py)."""
    from tests.node_packages import node_package

    return node_package(AXE_PACKAGE) / "axe.min.js"


@pytest.fixture(scope="module")
def token(server) -> str:
    """The demo admin's API token on the module's ``server`` (a ServerProcess)."""
    return server.token("admin")

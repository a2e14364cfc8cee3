"""An admin reads the owners page of two real ``serve`` peers on a private PostgreSQL: both
peers with their address and units, every unit with its owner and epoch; axe-core finds no
serious or critical violation on it in the light and dark themes and at a phone's width. A
viewer has no link to it and is refused it."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.browser.test_axe_finds_no_serious_violation import BLOCKING_IMPACTS, RUN_AXE
from tests.postgres_server import PostgresServer, peers_missing
from tests.server_process import PEER_ADMIN_PASSWORD, ServerProcess, peers_start, peers_stop

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(peers_missing() is not None, reason=str(peers_missing())),
]

PARTITIONS = ("alpha", "beta", "gamma")
UNITS = {*PARTITIONS, "quota-trees"}
YAML = "partitions:\n" + "".join(
    f"  - name: {name}\n    queues:\n      - name: root\n        queues:\n          - name: load\n"
    for name in PARTITIONS
)
ADMIN = ("admin", PEER_ADMIN_PASSWORD)
VIEWER = ("reader", "a-long-enough-password-2")
MAKE_VIEWER = (
    "from django.contrib.auth import get_user_model;"
    f"get_user_model().objects.create_user({VIEWER[0]!r}, password={VIEWER[1]!r})"
)
THEME_KEY = "quotaweb-theme"
VIEWS = (
    ("light", {"width": 1280, "height": 720}, None),
    ("dark", {"width": 1280, "height": 720}, ["color-contrast"]),
    ("light", {"width": 390, "height": 844}, ["scrollable-region-focusable", "color-contrast"]),
)


@pytest.fixture(scope="module")
def peers(tmp_path_factory) -> Iterator[list[ServerProcess]]:
    database = PostgresServer()
    servers: list[ServerProcess] = []
    try:
        database.start()
        url = database.create_database()
        servers, _ = peers_start(tmp_path_factory.mktemp("peers"), url, count=2,
                                 config_yaml=YAML, env={"QUOTAWEB_LEASE_MS": "1000"})
        servers[0].manage("shell", "-c", MAKE_VIEWER)
        yield servers
    finally:
        peers_stop(servers)
        database.close()


def _signed_in(browser, server: ServerProcess, who, *, viewport=None, theme="light",
               axe_script=None):
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 720})
    context.set_default_timeout(15_000)
    context.add_init_script(f"localStorage.setItem({THEME_KEY!r}, {theme!r})")
    if axe_script is not None:
        context.add_init_script(path=axe_script)
    page = context.new_page()
    page.goto(server.url("/accounts/login/?next=/"))
    page.get_by_label("Username").fill(who[0])
    page.get_by_label("Password").fill(who[1])
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(server.url("/"))
    return page


def _units_shared(page, server: ServerProcess) -> None:
    """Reload the page until both peers hold their two units each."""
    for _ in range(100):
        page.goto(server.url("/owners/"))
        owners = page.locator("[data-unit] td:nth-child(2)").all_inner_texts()
        if sorted(owners) == ["peer1", "peer1", "peer2", "peer2"]:
            return
        page.wait_for_timeout(200)
    raise AssertionError(f"the units were not shared out: {owners}")


def test_an_admin_reads_every_peer_and_every_units_owner(browser, peers, axe_script):
    first, _ = peers
    page = _signed_in(browser, first, ADMIN, axe_script=axe_script)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Owners").click()
    page.wait_for_url(first.url("/owners/"))
    _units_shared(page, first)
    assert page.get_by_role("heading", name="Owners", level=1).is_visible()
    rows = page.locator("[data-peer]")
    assert rows.count() == 2
    for number, server in enumerate(peers, start=1):
        row = page.locator(f'[data-peer="peer{number}"]')
        assert f"127.0.0.1:{server.port}" in row.inner_text()
        owned = {unit.strip() for unit in row.locator("td").nth(1).inner_text().split(",")}
        assert len(owned) == 2
        assert owned <= UNITS
    units = {
        row.get_attribute("data-unit"): row.locator("td").nth(1).inner_text()
        for row in page.locator("[data-unit]").all()
    }
    assert set(units) == UNITS
    epochs = page.locator("[data-unit] td:nth-child(3)").all_inner_texts()
    assert all(re.fullmatch(r"[1-9]\d*", epoch) for epoch in epochs), epochs
    page.context.close()

    for theme, viewport, rules in VIEWS:
        page = _signed_in(browser, first, ADMIN, viewport=viewport, theme=theme,
                          axe_script=axe_script)
        page.goto(first.url("/owners/"))
        page.wait_for_load_state("load")
        found = page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), rules])
        assert found == [], f"{theme} at {viewport['width']} px: {found}"
        page.context.close()


def test_a_viewer_has_no_link_to_it_and_is_refused_it(browser, peers):
    first, _ = peers
    page = _signed_in(browser, first, VIEWER)
    assert page.get_by_role("navigation", name="Main").get_by_role(
        "link", name="Owners").count() == 0
    response = page.goto(first.url("/owners/"))
    assert response.status == 403
    assert "peer1" not in page.content()
    page.context.close()

"""Memory reads as admins write it, in a real browser (issue 14, items 1 and 9): a limit staged
as ``16Gi`` is ``16Gi`` in the draft's YAML diff and ``16 GiB`` in its impact table, the usage
pages say ``30 GiB of 40 GiB``, the exact bytes are on hover, no page prints a decimal unit, and
a limit that a parent's cap shrinks says so."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.resource_rows import fill_resources
from tests.configs import ODD_READINGS_YAML, SMALL_YAML

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GiB = 2**30
DECIMAL_UNITS = re.compile(r"\d (?:kB|MB|GB|TB|PB)\b")


def _active(yaml_text: str):
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_get, engines_load

    version = config_apply(yaml_text=yaml_text, author=None, base_version=None)
    engines_load(yaml_text=version.yaml, version=version.number)
    return engines_get()


@pytest.fixture
def alice_busy(db):
    """SMALL_YAML active, alice using 30 GiB of her 40Gi at root.eng, bob 2 GiB."""
    with _active(SMALL_YAML).engine("default") as engine:
        assert engine.increase(user="alice", groups=["ml"], queue_path="root.eng",
                               resource={"memory": 30 * GiB}, app_id="a1").allowed
        assert engine.increase(user="bob", groups=[], queue_path="root.eng",
                               resource={"memory": 2 * GiB}, app_id="b1").allowed


def test_a_staged_limit_reads_as_written_in_the_diff_and_the_impact(
    page, live_server, log_in, admin, alice_busy
):
    log_in(admin)
    page.goto(f"{live_server.url}/config/queues/default/root.eng/")
    expect(page.locator("main")).to_contain_text("memory 100 GiB, 100 vcore")  # max: 100Gi
    page.get_by_text("Edit entry 1").click()
    entry = page.locator("form[data-form=limit-0]")
    fill_resources(entry, "memory: 16Gi, vcore: 20")
    entry.get_by_role("button", name="Stage changes").click()
    expect(page.locator("[data-draft-banner]")).to_contain_text("1 staged change")

    page.get_by_role("link", name="Review and apply").click()
    alice = page.locator('tr[data-impact="user:alice"]')
    using, limit = alice.locator("td").nth(2), alice.locator("td").nth(3)
    expect(using).to_have_text("memory 30 GiB")
    expect(using).to_have_attribute("title", f"memory {30 * GiB} bytes")
    expect(limit).to_have_text("memory 16 GiB, 20 vcore")
    expect(limit).to_have_attribute("title", f"memory {16 * GiB} bytes, vcore 20000 millicores")
    page.get_by_text("YAML diff").click()
    expect(page.locator("pre.diff")).to_contain_text("16Gi")
    expect(page.locator("main")).not_to_contain_text(DECIMAL_UNITS)


def test_the_usage_pages_read_binary_units_with_the_bytes_on_hover(
    page, live_server, log_in, viewer, alice_busy
):
    log_in(viewer)
    page.goto(f"{live_server.url}/usage/default/queues/root.eng/")
    alice = page.locator('tr[data-key="alice"]')
    expect(alice).to_contain_text("30 GiB of 40 GiB · 75 %")
    expect(alice.locator(".ubar").first).to_have_attribute(
        "title", re.compile(rf"^memory: {30 * GiB} bytes used of {40 * GiB} bytes")
    )
    expect(page.locator("main")).not_to_contain_text(DECIMAL_UNITS)

    page.goto(f"{live_server.url}/usage/default/users/alice/")
    # alice may hold 40Gi at root.eng; its own max is 100Gi, shared with bob's 2 GiB.
    eng = page.locator('tbody[data-rows="tree"] tr[data-key="root.eng"]')
    expect(eng).to_contain_text("30 GiB of 40 GiB · 75 %")
    expect(page.locator("main")).not_to_contain_text(DECIMAL_UNITS)


@pytest.fixture
def research_busy(db):
    """ODD_READINGS_YAML active: six applications in vision, one of 2 GiB in nlp."""
    with _active(ODD_READINGS_YAML).engine("default") as engine:
        for n in range(6):
            assert engine.increase(user="vic", groups=[], queue_path="root.research.vision",
                                   resource={"memory": GiB}, app_id=f"vision-{n}").allowed
        assert engine.increase(user="nia", groups=[], queue_path="root.research.nlp",
                               resource={"memory": 2 * GiB}, app_id="nlp-0").allowed


def test_a_forbidden_gpu_and_a_shared_cap_read_with_their_reason(
    page, live_server, log_in, viewer, research_busy
):
    log_in(viewer)
    page.goto(f"{live_server.url}/usage/default/")
    nlp = page.locator('tbody[data-rows="tree"] tr[data-key="root.research.nlp"]')
    bars = nlp.locator(".ubar-text")
    expect(bars).to_have_text([
        "2 GiB of 250 GiB · 0 % · capped by root.research: 256 GiB less 6 GiB in use elsewhere",
        "not allowed",
        "1 of 74 · 1 % · capped by root.research: 80 less 6 in use elsewhere",
    ])
    expect(page.locator("main")).not_to_contain_text("0 of 0")

"""In a real browser, on the sample config (comments, flow style, quoted values): an admin
tightens a parent's limit before its child's, sees the problem on the child's field and on the
draft, fixes the child and applies; the version's YAML differs from the admin's document only in
the two lines changed, with every comment kept."""

from __future__ import annotations

import difflib

import pytest
from playwright.sync_api import expect

from tests.browser.resource_rows import fill_resources
from tests.configs import SAMPLE_CONFIG

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SAMPLE = SAMPLE_CONFIG.read_text(encoding="utf-8")


@pytest.fixture
def sample(db):
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_load

    version = config_apply(yaml_text=SAMPLE, author=None, base_version=None)
    engines_load(yaml_text=version.yaml, version=version.number)
    return version


def _stage_users_cap(page, url: str, *, entry: int, max_resources: str) -> None:
    page.goto(url)
    # An entry with a problem in the draft comes with its editor open already.
    if page.locator(f"[data-editor=limit-{entry}]").get_attribute("open") is None:
        page.get_by_text(f"Edit entry {entry + 1}").click()
    form = page.locator(f"form[data-form=limit-{entry}]")
    fill_resources(form, max_resources)
    form.get_by_role("button", name="Stage changes").click()


def test_a_parent_tightened_before_its_child_applies_as_a_two_line_diff(
    page, live_server, log_in, admin, sample
):
    from quotaweb.config.models import ConfigVersion

    log_in(admin)
    research = f"{live_server.url}/config/queues/default/root.research/"
    nlp = f"{live_server.url}/config/queues/default/root.research.nlp/"

    # Entry 2 of root.research caps each researcher ("*"); nlp's "*" entry (entry 2) allows
    # 24 vcore, so 16 here is refused until nlp's is tightened too.
    _stage_users_cap(
        page, research, entry=1, max_resources="memory: 128Gi, vcore: 16, nvidia.com/gpu: 2"
    )
    expect(page.locator("[data-draft-problems]")).to_contain_text("1 problem")
    page.locator("[data-draft-problems] a", has_text="root.research.nlp").click()
    error = page.locator("form[data-form=limit-1] [data-error-for]")
    expect(error).to_contain_text("24 vcore")
    expect(error).not_to_contain_text("memory")

    page.get_by_role("link", name="Review and apply").click()
    expect(page.locator("[data-apply-unavailable]")).to_be_visible()
    expect(page.get_by_role("button", name="Apply as a new version")).to_have_count(0)

    _stage_users_cap(page, nlp, entry=1, max_resources="memory: 96Gi, vcore: 12, nvidia.com/gpu: 2")
    expect(page.locator("[data-draft-problems]")).to_have_count(0)
    page.get_by_role("link", name="Review and apply").click()
    page.get_by_label("Comment").fill("tighter researchers")
    page.get_by_role("button", name="Apply as a new version").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Version 2")

    # The version's diff page shows the two changed lines, not the whole document rewritten.
    page.goto(f"{live_server.url}/config/versions/2/diff/")
    expect(page.locator("pre.diff .diff-add")).to_have_count(2)
    expect(page.locator("pre.diff .diff-add").last).to_contain_text("vcore: 12")

    written = ConfigVersion.objects.get(number=2).yaml
    changed = [
        line for line in difflib.unified_diff(SAMPLE.splitlines(), written.splitlines(),
                                              lineterm="")
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert changed == [
        "-                maxresources: {memory: 128Gi, vcore: 32, nvidia.com/gpu: 2}",
        "+                maxresources: {memory: 128Gi, vcore: 16, nvidia.com/gpu: 2}",
        "-                    maxresources: {memory: 96Gi, vcore: 24, nvidia.com/gpu: 2}",
        "+                    maxresources: {memory: 96Gi, vcore: 12, nvidia.com/gpu: 2}",
    ]
    assert written.startswith("# quotaweb sample configuration")

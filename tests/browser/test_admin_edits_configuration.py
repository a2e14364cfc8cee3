"""An admin shapes queues and limits in a real browser: edits are staged (invalid ones too, with
their errors on their fields), checked against the whole hierarchy, applied as one version, and
can be rolled back."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.resource_rows import fill_resources
from tests.configs import SMALL_YAML

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GiB = 2**30


@pytest.fixture
def active(db):
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_load

    version = config_apply(yaml_text=SMALL_YAML, author=None, base_version=None)
    engines_load(yaml_text=version.yaml, version=version.number)
    return version


@pytest.fixture
def eng(page, live_server, log_in, admin, active):
    log_in(admin)
    page.goto(f"{live_server.url}/config/queues/default/root.eng/")
    return page


def _counts() -> tuple[int, int]:
    from quotaweb.config.models import ConfigVersion, Draft

    return ConfigVersion.objects.count(), Draft.objects.count()


def _apply_draft(page, comment: str) -> None:
    page.get_by_role("link", name="Review and apply").click()
    page.get_by_label("Comment").fill(comment)
    page.get_by_role("button", name="Apply as a new version").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Version 2")


def test_admin_adds_a_queue_and_a_limit_and_the_version_appears_in_the_history(eng, live_server):
    child = eng.locator("form[data-form=child]")
    eng.get_by_text("Add a child queue").click()
    child.get_by_label("Name").fill("data")
    child.get_by_label("Max", exact=True).fill("memory: 10Gi")
    child.get_by_role("button", name="Stage new queue").click()
    expect(eng.get_by_role("heading", level=1)).to_contain_text("root.eng.data")
    expect(eng.locator("[data-draft-banner]")).to_contain_text("1 staged change")

    eng.get_by_text("Add a limit entry").click()
    entry = eng.locator("form[data-form=new-limit]")
    entry.get_by_label("Description").fill("zoe's cap")
    users = entry.get_by_label("Add to Users")
    users.fill("zoe")
    users.press("Enter")
    expect(entry.locator("[data-token=zoe]")).to_be_visible()
    fill_resources(entry, "memory: 2Gi")
    # root.eng's wildcard entry caps everyone's applications, so zoe's entry must cap them too.
    entry.get_by_label("Max applications").fill("1")
    entry.get_by_role("button", name="Stage new entry").click()
    expect(eng.locator("[data-limit='1']")).to_contain_text("zoe's cap")

    _apply_draft(eng, "a data queue for zoe")
    eng.get_by_role("link", name="Version history").click()
    row = eng.locator("tr", has_text="a data queue for zoe")
    expect(row).to_contain_text("2")
    expect(row).to_contain_text("queue root.eng.data (default) added")
    assert _counts() == (2, 0)


def _first_entry_for_bob(page, *, max_resources: str):
    """Open "Add a limit entry" on the page and fill a first entry for user bob."""
    page.get_by_text("Add a limit entry").click()
    entry = page.locator("form[data-form=new-limit]")
    entry.get_by_label("Position").select_option("0")
    users = entry.get_by_label("Add to Users")
    users.fill("bob")
    users.press("Enter")
    entry.get_by_label("Max applications").fill("1")
    fill_resources(entry, max_resources)
    return entry


def test_an_invalid_limit_is_staged_with_the_error_on_its_field(eng):
    # root.eng's max is 100Gi memory: a user limit of 200Gi goes above it (rule L12).
    entry = _first_entry_for_bob(eng, max_resources="memory: 200Gi")
    entry.get_by_role("button", name="Stage new entry").click()
    error = eng.locator("form[data-form=limit-0] [data-error-for=max_resources]")
    expect(error).to_be_visible()
    expect(error).to_contain_text("go above this queue's max (memory 100 GiB)")
    expect(eng.locator("form[data-form=limit-0] [data-token=bob]")).to_be_visible()
    expect(eng.locator("[data-draft-problems]")).to_contain_text("1 problem")
    assert _counts() == (1, 1)


def test_a_staged_draft_of_three_edits_applies_as_one_version(eng):
    from quotaweb.config.models import ConfigVersion
    from tests.config_rows import config_from_rows

    eng.get_by_text("Edit this queue").click()
    eng.locator("form[data-form=queue]").get_by_label("Max applications").fill("12")
    eng.get_by_role("button", name="Stage changes").first.click()
    expect(eng.locator("[data-draft-banner]")).to_contain_text("1 staged change")

    eng.get_by_text("Edit entry 1").click()
    first = eng.locator("form[data-form=limit-0]")
    first.get_by_label("Max applications").fill("3")
    first.get_by_role("button", name="Stage changes").click()
    eng.get_by_role("button", name="Remove entry 3").click()
    expect(eng.locator("[data-draft-banner]")).to_contain_text("3 staged changes")
    assert _counts() == (1, 1)

    eng.get_by_role("link", name="Review and apply").click()
    expect(eng.locator("[data-staged]")).to_have_count(3)
    eng.get_by_label("Comment").fill("three edits")
    eng.get_by_role("button", name="Apply as a new version").click()
    expect(eng.get_by_role("heading", level=1)).to_contain_text("Version 2")
    assert _counts() == (2, 0)
    assert ConfigVersion.objects.get(number=2).comment == "three edits"
    eng_queue = config_from_rows().partition("default").root.children[0]
    assert eng_queue.max_applications == 12
    assert [limit.max_applications for limit in eng_queue.limits] == [3, 2]


def test_a_rollback_restores_the_earlier_yaml_and_the_engine_limits(eng, live_server):
    from quotaweb.config.models import ConfigVersion
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_get

    def alice_memory_headroom() -> int:
        with engines_get().engine("default") as engine:
            headroom = engine.headroom(
                user="alice", groups=[], queue_path="root.eng", app_id="probe"
            )
        return headroom["memory"]

    config_apply(
        yaml_text=SMALL_YAML.replace("memory: 40Gi", "memory: 16Gi"), author=None,
        base_version=1,
    )
    assert alice_memory_headroom() == 16 * GiB
    eng.goto(f"{live_server.url}/config/versions/1/")
    eng.get_by_role("link", name="Roll back to this version…").click()
    expect(eng.locator("[data-preview]")).to_contain_text("limit 1 of root.eng (default) changed")
    eng.get_by_role("button", name="Roll back to version 1").click()
    expect(eng.get_by_role("heading", level=1)).to_contain_text("Version 3")
    expect(eng.locator("[data-active]")).to_be_visible()
    assert ConfigVersion.objects.get(number=3).yaml == ConfigVersion.objects.get(number=1).yaml
    assert alice_memory_headroom() == 40 * GiB


def test_a_viewers_forged_edit_of_a_queue_gets_403(page, live_server, log_in, viewer, active):
    log_in(viewer)
    page.goto(f"{live_server.url}/config/queues/default/root.eng/")
    expect(page.locator("main form[method=post]")).to_have_count(0)
    expect(page.get_by_text("Edit this queue")).to_have_count(0)
    token = page.locator("input[name=csrfmiddlewaretoken]").first.get_attribute("value")
    response = page.request.post(
        f"{live_server.url}/config/queues/default/root.eng/",
        form={"csrfmiddlewaretoken": token, "action": "queue-delete"},
        headers={"Referer": page.url},
    )
    assert response.status == 403
    assert _counts() == (1, 0)


def test_the_hierarchy_is_checked_while_the_admin_types(eng):
    entry = _first_entry_for_bob(eng, max_resources="memory: 200Gi")
    # No submit: the error arrives from the check that runs after the admin stops typing.
    expect(entry.locator("[data-error-for=max_resources][data-live]")).to_contain_text(
        "go above this queue's max"
    )
    fill_resources(entry, "memory: 20Gi")
    expect(entry.locator("[data-check=ok]")).to_be_visible()
    expect(entry.locator("[data-error-for=max_resources]")).to_have_count(0)
    assert _counts() == (1, 0)

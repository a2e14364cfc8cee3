"""An error the check while typing finds is read with its field: the input is marked invalid and
described by its hint and that error; once the value is fixed it is described by its hint
alone again."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.resource_rows import fill_resources
from tests.configs import SMALL_YAML

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def entry(page, live_server, log_in, admin):
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_load

    version = config_apply(yaml_text=SMALL_YAML, author=None, base_version=None)
    engines_load(yaml_text=version.yaml, version=version.number)
    log_in(admin)
    page.goto(f"{live_server.url}/config/queues/default/root.eng/")
    page.get_by_text("Add a limit entry").click()
    form = page.locator("form[data-form=new-limit]")
    users = form.get_by_label("Add to Users")
    users.fill("bob")
    users.press("Enter")
    form.get_by_label("Max applications").fill("1")
    return form


def _descriptions(field) -> list[str]:
    return field.evaluate(
        "(input) => (input.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean)"
        ".map((id) => document.getElementById(id)?.textContent.trim() ?? `no element ${id}`)"
    )


def test_the_live_error_describes_the_field_until_it_is_fixed(entry):
    field = entry.get_by_label("Resource type 1", exact=True)
    hint = _descriptions(field)
    # root.eng's max is 100Gi memory: a user limit of 200Gi goes above it (rule L12).
    fill_resources(entry, "memory: 200Gi")
    expect(entry.locator("[data-error-for=max_resources][data-live]")).to_be_visible()
    expect(field).to_have_attribute("aria-invalid", "true")
    described = _descriptions(field)
    assert described[: len(hint)] == hint
    assert any("go above this queue's max" in text for text in described[len(hint):])
    fill_resources(entry, "memory: 20Gi")
    expect(entry.locator("[data-check=ok]")).to_be_visible()
    expect(field).not_to_have_attribute("aria-invalid", "true")
    assert _descriptions(field) == hint

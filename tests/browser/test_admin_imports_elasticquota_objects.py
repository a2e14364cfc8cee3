"""An admin brings Koordinator's ElasticQuota objects in through the YAML page in a real
browser: objects that cannot be taken are listed with the object each concerns and nothing is
staged; good ones are staged in the draft, whose page shows the changes, and applied as one
version. The page stays free of serious accessibility violations with the problems shown."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_axe_finds_no_serious_violation import BLOCKING_IMPACTS, RUN_AXE
from tests.config.elasticquota_support import KUBECTL_OUTPUT, listing, quota
from tests.configs import SMALL_YAML

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def active(db):
    from quotaweb.config.services import config_apply
    from quotaweb.engine.gateway import engines_load

    version = config_apply(yaml_text=SMALL_YAML, author=None, base_version=None)
    engines_load(yaml_text=version.yaml, version=version.number)
    return version


def _counts() -> tuple[int, int]:
    from quotaweb.config.models import ConfigVersion, Draft

    return ConfigVersion.objects.count(), Draft.objects.count()


def test_an_admin_imports_through_the_draft(page, live_server, log_in, admin, active,
                                            axe_script):
    page.context.add_init_script(path=axe_script)
    log_in(admin)
    page.goto(f"{live_server.url}/config/yaml/")
    form = page.locator("form[data-form=elasticquota]")
    form.get_by_label("Paste ElasticQuota objects").fill(
        listing(quota("p", is_parent=True), quota("c", parent="ghost"))
    )
    form.get_by_role("button", name="Check and stage in my draft").click()

    problems = page.locator("[data-eq-errors]")
    expect(problems).to_contain_text("1 problem, nothing was staged")
    expect(problems).to_contain_text("(object team/c)")
    assert _counts() == (1, 0)
    assert page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), None]) == []

    form = page.locator("form[data-form=elasticquota]")
    form.get_by_label("Paste ElasticQuota objects").fill(KUBECTL_OUTPUT)
    form.get_by_role("button", name="Check and stage in my draft").click()

    expect(page.locator("main")).to_contain_text("Staged in your draft: 5 quota groups")
    expect(page.locator("main")).to_contain_text("root.research.ml.ml-train")
    assert _counts() == (1, 1)
    page.get_by_label("Comment").fill("from koordinator")
    page.get_by_role("button", name="Apply as a new version").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Version 2")
    assert _counts() == (2, 0)

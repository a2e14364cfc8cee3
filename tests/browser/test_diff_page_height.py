"""The diff page of a long YAML diff is as tall as what it shows: the diff scrolls in its own box
and the page ends after it (the screen-reader prefixes of every line used to sit at their lines'
places outside the box, making the page 12,000 px tall for 1,100 px of content)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.configs import SMALL_YAML

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NOTES = 400


@pytest.fixture
def two_versions(db):
    from quotaweb.config.services import config_apply

    config_apply(yaml_text=SMALL_YAML, author=None, base_version=None)
    # One changed limit and many added comment lines: a short list of changes, a long text diff.
    notes = "".join(f"# note {n}\n" for n in range(NOTES))
    newer = SMALL_YAML.replace("maxapplications: 6", "maxapplications: 8") + notes
    return config_apply(yaml_text=newer, author=None, base_version=1)


def test_a_long_diff_scrolls_in_its_box_and_the_page_ends_after_it(
    page, live_server, log_in, viewer, two_versions
):
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(viewer)
    page.goto(f"{live_server.url}/config/versions/{two_versions.number}/diff/")
    diff = page.locator("pre.diff")
    expect(diff).to_contain_text(f"# note {NOTES - 1}")

    box_height = diff.evaluate("pre => pre.scrollHeight")
    page_height = page.evaluate("document.documentElement.scrollHeight")
    footer_bottom = page.evaluate(
        "document.querySelector('footer').getBoundingClientRect().bottom + window.scrollY"
    )
    assert box_height > 5000  # the diff really is long
    assert page_height < 2 * 800
    assert page_height <= footer_bottom + 50

    # The last line is reached by scrolling the box, not the page.
    diff.scroll_into_view_if_needed()
    diff.evaluate("pre => { pre.scrollTop = pre.scrollHeight; }")
    expect(page.locator("pre.diff .diff-add").last).to_be_in_viewport()

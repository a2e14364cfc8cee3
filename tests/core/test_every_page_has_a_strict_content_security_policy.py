"""Every page, logged out and in, its error pages and the API's answers carry a strict
Content-Security-Policy: this site's scripts, styles and connections only, nothing inline, no
eval, no plugins, no framing, forms posted here. The templates and the row helpers hold no inline
script, style or handler for it to refuse (sizes are classes of static/css/sizes.css, which is
quotaweb.css_sizes written out)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quotaweb.css_sizes import stylesheet
from quotaweb.teams.services import team_link_create
from tests.usage.pages import engines_busy

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
PAGES = (
    "/", "/config/", "/config/draft/", "/config/yaml/", "/config/versions/",
    "/config/versions/1/", "/config/queues/default/root.eng.ml/",
    "/usage/default/", "/usage/default/users/", "/usage/default/users/alice/",
    "/usage/default/groups/", "/usage/default/groups/ml/",
    "/usage/default/queues/root.eng.ml/", "/usage/default/activity/",
    "/usage/default/over-limit/", "/elastic/default/", "/trees/", "/trees/new/",
    "/teams/", "/api/docs/", "/no-such-page/",
)
ANSWERS = ("/api/schema/", "/api/v1/partitions/default/allocations", "/ws/v1/partitions")
# Inline script or style in markup: what the policy refuses.
INLINE = re.compile(
    r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle=|\son[a-z]+=|javascript:", re.IGNORECASE
)


def _policy(response) -> dict[str, str]:
    header = response.headers.get("Content-Security-Policy", "")
    return {
        name: value.strip()
        for name, _, value in (part.strip().partition(" ") for part in header.split(";"))
        if name
    }


def _assert_strict(response, where: str) -> None:
    policy = _policy(response)
    for directive, value in REQUIRED.items():
        assert policy.get(directive) == value, (where, directive, policy)
    text = response.headers["Content-Security-Policy"]
    for loophole in ("'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", "*", "data:"):
        assert loophole not in text, (where, loophole)


@pytest.fixture
def busy():
    """Users, groups and applications in use, so every row, bar and chart is drawn."""
    return engines_busy()


def test_pages_for_an_admin_carry_the_policy_and_no_inline_markup(quota_admin_client, admin, busy):
    link = team_link_create(partition="default", kind="group", name="ml", author=admin)
    for path in (*PAGES, f"/team/{link.token}/", "/team/not-a-link/"):
        response = quota_admin_client.get(path)
        assert response.status_code in (200, 404), (path, response.status_code)
        _assert_strict(response, path)
        assert not INLINE.findall(response.content.decode()), path


def test_logged_out_pages_and_refusals_carry_the_policy(client, viewer_client):
    for path in ("/accounts/login/", "/", "/usage/default/"):
        _assert_strict(client.get(path), path)
    _assert_strict(viewer_client.get("/teams/"), "/teams/ (403)")


def test_api_answers_carry_the_policy(admin_token, busy):
    for path in ANSWERS:
        _assert_strict(admin_token.get(path), path)


def test_no_template_holds_inline_script_style_or_handlers():
    found = [
        f"{path.relative_to(ROOT)}: {match}"
        for path in (ROOT / "templates").rglob("*.html")
        for match in INLINE.findall(path.read_text(encoding="utf-8"))
    ]
    assert not found


def test_the_sizes_stylesheet_is_the_one_css_sizes_writes():
    written = (ROOT / "static" / "css" / "sizes.css").read_text(encoding="utf-8")
    assert written == stylesheet()

"""A person signs in through the site's OpenID Connect provider in a real browser (chromium):
the code flow with PKCE against a real provider (oidc-provider), the role from their groups in
the header, and logging out ends the provider's session too. quotaweb's own pages break no
Content-Security-Policy on the way."""

from __future__ import annotations

import copy

import pytest
from playwright.sync_api import expect

from tests.accounts.oidc_flow import ROLE_GROUPS
from tests.oidc_provider import OidcProvider

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def provider(live_server, settings):
    with OidcProvider(
        redirect_uris=[f"{live_server.url}/accounts/oidc/callback/"],
        post_logout_uris=[f"{live_server.url}/accounts/login/"],
    ).running() as running:
        for name, value in running.settings(**ROLE_GROUPS).items():
            setattr(settings, name, value)
        # What settings.py adds to the policy for QUOTAWEB_OIDC_ISSUER (the logout's redirect).
        policy = copy.deepcopy(settings.CONTENT_SECURITY_POLICY)
        policy["DIRECTIVES"]["form-action"].append(running.issuer)
        settings.CONTENT_SECURITY_POLICY = policy
        yield running


@pytest.fixture
def csp_reports(page, live_server) -> list[str]:
    reports: list[str] = []
    page.on("console", lambda message: reports.append(message.text)
            if "Content Security Policy" in message.text
            and message.location.get("url", "").startswith(live_server.url) else None)
    return reports


def _sign_in_at_the_provider(page, login: str) -> None:
    page.locator('input[name="login"]').fill(login)
    page.locator('input[name="password"]').fill("any password")
    page.get_by_role("button", name="Sign-in").click()
    page.get_by_role("button", name="Continue").click()


def test_sign_in_gives_the_role_and_logout_ends_the_provider_session(
    page, live_server, provider, csp_reports
):
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_role("link", name="Sign in with Test SSO").click()
    _sign_in_at_the_provider(page, "alice")

    expect(page.locator("[data-username]")).to_have_text("alice")
    expect(page.locator("[data-role]")).to_have_attribute("data-role", "admin")
    assert page.url.startswith(live_server.url)

    page.get_by_role("button", name="Log out").click()
    page.get_by_role("button", name="Yes, sign me out").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    expect(page.get_by_text("You are logged out of quotaweb, and of Test SSO too.")).to_be_visible()

    # The provider's session is gone: signing in again asks who you are.
    page.get_by_role("link", name="Sign in with Test SSO").click()
    expect(page.locator('input[name="login"]')).to_be_visible()
    assert csp_reports == []


@pytest.mark.parametrize(("login", "role"), [("victor", "viewer"), ("mia", "member")])
def test_the_groups_claim_decides_the_role_shown(page, live_server, provider, login, role):
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_role("link", name="Sign in with Test SSO").click()
    _sign_in_at_the_provider(page, login)

    expect(page.locator("[data-username]")).to_have_text(login)
    expect(page.locator("[data-role]")).to_have_attribute("data-role", role)


def test_the_login_page_with_the_button_and_with_the_provider_away_passes_axe(
    browser, live_server, settings, axe_script
):
    from tests.browser.test_axe_finds_no_serious_violation import BLOCKING_IMPACTS, RUN_AXE
    from tests.server_process import free_port

    settings.QUOTAWEB_OIDC_ISSUER = f"http://127.0.0.1:{free_port()}"
    settings.QUOTAWEB_OIDC_CLIENT_ID = "quotaweb"
    settings.QUOTAWEB_OIDC_CLIENT_SECRET = "unused"
    settings.QUOTAWEB_OIDC_NAME = "Campus SSO"
    context = browser.new_context()
    context.add_init_script(path=axe_script)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        found = page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), None])
        page.get_by_role("link", name="Sign in with Campus SSO").click()
        expect(page.get_by_role("alert")).to_contain_text("Campus SSO is not available right now")
        found += page.evaluate(RUN_AXE, [list(BLOCKING_IMPACTS), None])
    finally:
        context.close()

    assert found == []

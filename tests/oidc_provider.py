"""A real OpenID Connect provider for the sign-in tests: panva's oidc-provider (npm, pinned in
package.json) run by node with the configuration in tests/oidc/provider.mjs, on a free port.

``OidcProvider(...).running()`` starts it and stops it; ``OidcBrowser`` plays the person at the
provider over plain HTTP (its development sign-in and consent forms, its logout form), so most
of the flow runs in the fast suite without a browser.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

import requests

from tests.node_packages import missing_tool, node_package
from tests.server_process import free_port

HERE = Path(__file__).resolve().parent / "oidc"
CLIENT_ID = "quotaweb"
CLIENT_SECRET = "quotaweb-test-secret"
# The people of the provider, with their groups (tests/oidc/accounts.json).
ACCOUNTS: dict[str, dict] = json.loads((HERE / "accounts.json").read_text())
START_TIMEOUT_SECONDS = 20
HTTP_TIMEOUT_SECONDS = 10


@dataclass
class OidcProvider:
    redirect_uris: list[str]
    post_logout_uris: list[str]
    id_token_ttl: int = 600
    clock_offset: int = 0
    port: int = 0

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def settings(self, **extra) -> dict:
        """Django settings that point quotaweb at this provider."""
        return {
            "QUOTAWEB_OIDC_ISSUER": self.issuer,
            "QUOTAWEB_OIDC_CLIENT_ID": CLIENT_ID,
            "QUOTAWEB_OIDC_CLIENT_SECRET": CLIENT_SECRET,
            "QUOTAWEB_OIDC_NAME": "Test SSO",
            **extra,
        }

    @contextmanager
    def running(self) -> Iterator[OidcProvider]:
        node = shutil.which("node")
        if node is None:
            missing_tool("node is needed to run the OpenID Connect provider (oidc-provider)")
        node_package("oidc-provider")
        self.port = self.port or free_port()
        env = {
            **os.environ,
            "OIDC_PORT": str(self.port),
            "OIDC_REDIRECT_URIS": " ".join(self.redirect_uris),
            "OIDC_POST_LOGOUT_URIS": " ".join(self.post_logout_uris),
            "OIDC_ID_TOKEN_TTL": str(self.id_token_ttl),
            "OIDC_CLOCK_OFFSET": str(self.clock_offset),
        }
        process = subprocess.Popen(
            [node, str(HERE / "provider.mjs")], env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )
        try:
            self._wait_ready(process)
            yield self
        finally:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)

    def _wait_ready(self, process: subprocess.Popen) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"oidc-provider exited: {process.stderr.read()}")
            try:
                requests.get(
                    f"{self.issuer}/.well-known/openid-configuration", timeout=1
                ).raise_for_status()
                return
            except requests.RequestException:
                time.sleep(0.1)
        raise RuntimeError(f"oidc-provider did not answer within {START_TIMEOUT_SECONDS} s")


_FORM_ACTION = re.compile(r'<form[^>]*action="([^"]+)"')
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


class OidcBrowser:
    """A person at the provider, over HTTP: follows the provider's redirects and fills its
    forms; stops at the first redirect that leaves the provider and returns its URL."""

    def __init__(self, issuer: str):
        self.issuer = issuer
        self.session = requests.Session()

    def _follow(self, response: requests.Response) -> requests.Response | str:
        while response.is_redirect:
            target = urljoin(response.url, response.headers["Location"])
            if not target.startswith(self.issuer):
                return target
            response = self.session.get(
                target, allow_redirects=False, timeout=HTTP_TIMEOUT_SECONDS
            )
        return response

    def _open(self, url: str) -> requests.Response | str:
        return self._follow(
            self.session.get(url, allow_redirects=False, timeout=HTTP_TIMEOUT_SECONDS)
        )

    def _post_form(self, page: requests.Response, **fields: str) -> requests.Response | str:
        action = urljoin(page.url, _FORM_ACTION.search(page.text).group(1))
        data = dict(_HIDDEN.findall(page.text))
        data.update(fields)
        return self._follow(self.session.post(
            action, data=data, allow_redirects=False, timeout=HTTP_TIMEOUT_SECONDS
        ))

    def authorize(self, url: str, *, login: str | None) -> str:
        """Open the authorization URL, sign in as ``login`` if asked, consent if asked; the
        redirect back to the client."""
        step = self._open(url)
        for _ in range(3):
            if isinstance(step, str):
                return step
            if 'name="prompt" value="login"' in step.text:
                if login is None:
                    raise AssertionError("the provider asked to sign in again")
                step = self._post_form(step, login=login, password="any")
            elif 'name="prompt" value="consent"' in step.text:
                step = self._post_form(step)
            else:
                raise AssertionError(f"unexpected page at the provider: {step.text[:500]}")
        raise AssertionError("the provider did not send the browser back")

    def asks_to_sign_in(self, url: str) -> bool:
        """Whether opening the authorization URL shows the provider's sign-in form."""
        step = self._open(url)
        return not isinstance(step, str) and 'name="prompt" value="login"' in step.text

    def log_out(self, url: str) -> str:
        """Open the provider's end-session URL and confirm; where it sends the browser."""
        page = self._open(url)
        assert not isinstance(page, str), "the provider did not ask to confirm the logout"
        step = self._post_form(page, logout="yes")
        assert isinstance(step, str), step.text[:500]
        return step

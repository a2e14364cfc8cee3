"""The OpenID Connect settings are read strictly: a setting that is missing or wrong stops the
process with a message that names it."""

from __future__ import annotations

import os

import pytest

from tests.core.test_settings_env import load_settings

ISSUER = {"QUOTAWEB_OIDC_ISSUER": "https://sso.example.org/realms/hpc"}
CLIENT = {"QUOTAWEB_OIDC_CLIENT_ID": "quotaweb", "QUOTAWEB_OIDC_CLIENT_SECRET": "s3cret-value"}


@pytest.mark.parametrize(("env", "says"), [
    (ISSUER, "QUOTAWEB_OIDC_ISSUER is set, so QUOTAWEB_OIDC_CLIENT_ID must be set too."),
    ({**ISSUER, "QUOTAWEB_OIDC_CLIENT_ID": "quotaweb"},
     "QUOTAWEB_OIDC_ISSUER is set, so QUOTAWEB_OIDC_CLIENT_SECRET must be set too."),
    (CLIENT, "QUOTAWEB_OIDC_CLIENT_ID is set but QUOTAWEB_OIDC_ISSUER is not."),
    ({"QUOTAWEB_OIDC_ISSUER": "sso.example.org", **CLIENT},
     "QUOTAWEB_OIDC_ISSUER='sso.example.org' is not an http(s) URL"),
    ({**ISSUER, **CLIENT, "QUOTAWEB_OIDC_SCOPES": "email profile"},
     "QUOTAWEB_OIDC_SCOPES='email profile' lacks openid"),
    ({**ISSUER, **CLIENT, "QUOTAWEB_OIDC_TIMEOUT_SECONDS": "0"},
     "QUOTAWEB_OIDC_TIMEOUT_SECONDS=0 is below the minimum of 1."),
    ({"QUOTAWEB_LOCAL_LOGIN": "0"}, "QUOTAWEB_LOCAL_LOGIN=0 leaves nobody a way to sign in"),
    ({"QUOTAWEB_LOCAL_LOGIN": "maybe"}, "QUOTAWEB_LOCAL_LOGIN='maybe' is not a boolean"),
])
def test_a_wrong_setting_stops_the_process_naming_it(env, says):
    result = load_settings(QUOTAWEB_SECRET_KEY="k", **env)

    assert result.returncode != 0
    assert says in result.stderr
    assert "s3cret-value" not in result.stderr


@pytest.mark.parametrize("env", [
    {**ISSUER, **CLIENT},
    {**ISSUER, **CLIENT, "QUOTAWEB_LOCAL_LOGIN": "0"},
    {"QUOTAWEB_LOCAL_LOGIN": "0", "QUOTAWEB_BREAK_GLASS_USERS": "admin"},
])
def test_a_whole_configuration_starts(env):
    result = load_settings(QUOTAWEB_SECRET_KEY="k", **env)

    assert result.returncode == 0, result.stderr


def test_the_provider_may_receive_the_logout_form(tmp_path):
    import json
    import subprocess
    import sys

    from tests.core.test_settings_env import ROOT

    env = {**ISSUER, **CLIENT, "QUOTAWEB_SECRET_KEY": "k"}
    clean = {k: v for k, v in os.environ.items() if not k.startswith("QUOTAWEB_")}
    result = subprocess.run(
        [sys.executable, "-c", "import json, quotaweb.settings as s; "
         "print(json.dumps(s.CONTENT_SECURITY_POLICY['DIRECTIVES']['form-action']))"],
        cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=60, check=True,
    )

    assert json.loads(result.stdout) == ["'self'", "https://sso.example.org"]

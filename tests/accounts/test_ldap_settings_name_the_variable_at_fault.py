"""QUOTAWEB_LDAP_* are read strictly: a value that cannot work stops start-up with a message
naming the variable; good values become django-auth-ldap's settings."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from quotaweb import ldap_settings as module
from quotaweb.ldap_settings import auth_ldap_settings, ldap_settings
from tests.server_process import ROOT

GOOD = {
    "QUOTAWEB_LDAP_URL": "ldap://ldap.example.org",
    "QUOTAWEB_LDAP_USER_BASE": "ou=people,dc=example,dc=org",
    "QUOTAWEB_LDAP_GROUP_BASE": "ou=groups,dc=example,dc=org",
}


def _read(environ, *, admin_groups=(), viewer_groups=()):
    return ldap_settings(environ, admin_groups=list(admin_groups),
                         viewer_groups=list(viewer_groups))


def test_without_a_url_there_is_no_ldap():
    assert _read({}) == {}


@pytest.mark.parametrize(("changes", "message"), [
    ({"QUOTAWEB_LDAP_URL": "http://ldap"},
     module.ERR_SCHEME.format(url="http://ldap")),
    ({"QUOTAWEB_LDAP_URL": "ldaps://ldap", "QUOTAWEB_LDAP_START_TLS": "1"},
     module.ERR_START_TLS_LDAPS),
    ({"QUOTAWEB_LDAP_START_TLS": "maybe"}, "QUOTAWEB_LDAP_START_TLS='maybe' is not a boolean"),
    ({"QUOTAWEB_LDAP_BIND_PASSWORD": "x"}, module.ERR_PASSWORD_WITHOUT_DN),
    ({"QUOTAWEB_LDAP_BIND_DN": "cn=q"}, module.ERR_DN_WITHOUT_PASSWORD),
    ({"QUOTAWEB_LDAP_USER_BASE": ""}, module.ERR_NO_USER_BASE),
    ({"QUOTAWEB_LDAP_USER_DN_TEMPLATE": "uid=%(user)s,dc=x"}, module.ERR_BOTH_USER_WAYS),
    ({"QUOTAWEB_LDAP_USER_BASE": "", "QUOTAWEB_LDAP_USER_DN_TEMPLATE": "uid=x"},
     module.ERR_DN_TEMPLATE.format(value="uid=x")),
    ({"QUOTAWEB_LDAP_USER_FILTER": "(uid=alice)"},
     module.ERR_FILTER.format(value="(uid=alice)")),
    ({"QUOTAWEB_LDAP_USER_FILTER": "uid=%(user)s"},
     module.ERR_FILTER_PARENS.format(value="uid=%(user)s")),
    ({"QUOTAWEB_LDAP_GROUP_TYPE": "nested"},
     "QUOTAWEB_LDAP_GROUP_TYPE='nested' is not one of: posix, groupOfNames."),
    ({"QUOTAWEB_LDAP_CA_FILE": "/no/such/ca.pem"},
     module.ERR_CA_FILE.format(path="/no/such/ca.pem")),
    ({"QUOTAWEB_LDAP_CACHE_SECONDS": "-1"}, "QUOTAWEB_LDAP_CACHE_SECONDS=-1 is below"),
    ({"QUOTAWEB_LDAP_TIMEOUT_SECONDS": "0"}, "QUOTAWEB_LDAP_TIMEOUT_SECONDS=0 is below"),
])
def test_a_value_that_cannot_work_names_its_variable(changes, message):
    with pytest.raises(ImproperlyConfigured) as caught:
        _read({**GOOD, **changes})
    assert str(caught.value).startswith(message)


def test_role_groups_without_a_group_base_are_refused():
    environ = {**GOOD, "QUOTAWEB_LDAP_GROUP_BASE": ""}
    with pytest.raises(ImproperlyConfigured) as caught:
        _read(environ, admin_groups=["hpc-admins"])
    assert str(caught.value) == module.ERR_ROLES_WITHOUT_GROUPS.format(
        name="QUOTAWEB_ADMIN_GROUPS"
    )


def test_a_setting_without_the_url_is_refused():
    with pytest.raises(ImproperlyConfigured) as caught:
        _read({"QUOTAWEB_LDAP_USER_BASE": "ou=people"})
    assert str(caught.value) == module.ERR_NOT_CONFIGURED.format(name="LDAP_USER_BASE")


def test_good_values_become_django_auth_ldaps_settings(tmp_path):
    import ldap
    from django_auth_ldap.config import GroupOfNamesType

    ca = tmp_path / "ca.pem"
    ca.write_text("not read here")
    values = _read({**GOOD, "QUOTAWEB_LDAP_GROUP_TYPE": "groupOfNames",
                    "QUOTAWEB_LDAP_CA_FILE": str(ca), "QUOTAWEB_LDAP_START_TLS": "yes"})
    found = auth_ldap_settings(values)
    assert found["AUTH_LDAP_SERVER_URI"] == "ldap://ldap.example.org"
    assert found["AUTH_LDAP_START_TLS"] is True
    assert found["AUTH_LDAP_USER_SEARCH"].filterstr == "(uid=%(user)s)"
    assert isinstance(found["AUTH_LDAP_GROUP_TYPE"], GroupOfNamesType)
    options = found["AUTH_LDAP_CONNECTION_OPTIONS"]
    assert options[ldap.OPT_X_TLS_CACERTFILE] == str(ca)
    assert options[ldap.OPT_X_TLS_REQUIRE_CERT] == ldap.OPT_X_TLS_DEMAND
    # The new TLS context is made last, from the options before it.
    assert list(options)[-1] == ldap.OPT_X_TLS_NEWCTX
    assert found["AUTH_LDAP_CACHE_TIMEOUT"] == 0


def test_a_bad_value_stops_start_up_naming_it():
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
        timeout=120, env={"PATH": "/usr/bin:/bin", "QUOTAWEB_SECRET_KEY": "x" * 50,
                          "QUOTAWEB_LDAP_URL": "ldap://ldap", "QUOTAWEB_DEFAULT_ROLE": "admin"},
    )
    assert result.returncode != 0
    assert "QUOTAWEB_DEFAULT_ROLE='admin' is not one of: member, viewer." in result.stderr

"""The LDAP sign-in's settings (django-auth-ldap's ``AUTH_LDAP_*``) from ``QUOTAWEB_LDAP_*``.

Read strictly, like every setting (``quotaweb.env``): a value that cannot work stops the process
with a message naming the variable, rather than turning into sign-ins that fail one by one.
docs/authentication.md describes each variable.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from quotaweb.env import env_bool, env_int, env_str

GROUP_TYPES = ("posix", "groupOfNames")
DEFAULT_USER_FILTER = "(uid=%(user)s)"
# The object class each group type's search looks for.
GROUP_CLASSES = {"posix": "posixGroup", "groupOfNames": "groupOfNames"}

ERR_SCHEME = "QUOTAWEB_LDAP_URL={url!r} must start with ldap:// or ldaps://."
ERR_START_TLS_LDAPS = (
    "QUOTAWEB_LDAP_START_TLS=1 with an ldaps:// QUOTAWEB_LDAP_URL: the connection is already TLS; "
    "use ldap:// with StartTLS, or ldaps:// without it."
)
ERR_FILTER = (
    "QUOTAWEB_LDAP_USER_FILTER={value!r} must contain %(user)s (the name typed at sign-in)."
)
ERR_FILTER_PARENS = "QUOTAWEB_LDAP_USER_FILTER={value!r} must be one filter in parentheses."
ERR_DN_TEMPLATE = "QUOTAWEB_LDAP_USER_DN_TEMPLATE={value!r} must contain %(user)s."
ERR_NO_USER_BASE = (
    "QUOTAWEB_LDAP_URL is set, so QUOTAWEB_LDAP_USER_BASE (where people are searched) or "
    "QUOTAWEB_LDAP_USER_DN_TEMPLATE (to bind as a person directly) must be set too."
)
ERR_BOTH_USER_WAYS = (
    "QUOTAWEB_LDAP_USER_DN_TEMPLATE and QUOTAWEB_LDAP_USER_BASE are both set: set one (bind as "
    "the person directly, or search for them first)."
)
ERR_PASSWORD_WITHOUT_DN = "QUOTAWEB_LDAP_BIND_PASSWORD is set but QUOTAWEB_LDAP_BIND_DN is not."
ERR_DN_WITHOUT_PASSWORD = "QUOTAWEB_LDAP_BIND_DN is set but QUOTAWEB_LDAP_BIND_PASSWORD is not."
ERR_CA_FILE = "QUOTAWEB_LDAP_CA_FILE={path!r} is not a readable file."
ERR_ROLES_WITHOUT_GROUPS = (
    "{name} names directory groups, but QUOTAWEB_LDAP_GROUP_BASE is not set, so LDAP users "
    "would have no groups: set QUOTAWEB_LDAP_GROUP_BASE."
)
ERR_NOT_CONFIGURED = "QUOTAWEB_{name} is set but QUOTAWEB_LDAP_URL is not."

ONLY_WITH_URL = (
    "LDAP_BIND_DN", "LDAP_BIND_PASSWORD", "LDAP_USER_BASE", "LDAP_USER_FILTER",
    "LDAP_USER_DN_TEMPLATE", "LDAP_GROUP_BASE", "LDAP_GROUP_TYPE", "LDAP_CA_FILE",
    "LDAP_START_TLS",
)


def ldap_settings(
    environ: Mapping[str, str], *, admin_groups: list[str], viewer_groups: list[str],
) -> dict[str, Any]:
    """``QUOTAWEB_LDAP_*`` read and checked: the plain values, for settings.py to hand to
    django-auth-ldap (``auth_ldap_settings``). Empty when ``QUOTAWEB_LDAP_URL`` is unset."""
    url = env_str("QUOTAWEB_LDAP_URL", None, environ=environ)
    if url is None:
        for name in ONLY_WITH_URL:
            if env_str(f"QUOTAWEB_{name}", None, environ=environ) is not None:
                raise ImproperlyConfigured(ERR_NOT_CONFIGURED.format(name=name))
        return {}
    if urlsplit(url).scheme not in ("ldap", "ldaps"):
        raise ImproperlyConfigured(ERR_SCHEME.format(url=url))
    start_tls = env_bool("QUOTAWEB_LDAP_START_TLS", False, environ=environ)
    if start_tls and urlsplit(url).scheme == "ldaps":
        raise ImproperlyConfigured(ERR_START_TLS_LDAPS)
    bind_dn = env_str("QUOTAWEB_LDAP_BIND_DN", "", environ=environ)
    # Not stripped further than env_str does: a password is what it is.
    bind_password = env_str("QUOTAWEB_LDAP_BIND_PASSWORD", "", environ=environ)
    if bind_password and not bind_dn:
        raise ImproperlyConfigured(ERR_PASSWORD_WITHOUT_DN)
    if bind_dn and not bind_password:
        raise ImproperlyConfigured(ERR_DN_WITHOUT_PASSWORD)
    user_base = env_str("QUOTAWEB_LDAP_USER_BASE", "", environ=environ)
    dn_template = env_str("QUOTAWEB_LDAP_USER_DN_TEMPLATE", "", environ=environ)
    if user_base and dn_template:
        raise ImproperlyConfigured(ERR_BOTH_USER_WAYS)
    if not user_base and not dn_template:
        raise ImproperlyConfigured(ERR_NO_USER_BASE)
    if dn_template and "%(user)s" not in dn_template:
        raise ImproperlyConfigured(ERR_DN_TEMPLATE.format(value=dn_template))
    user_filter = env_str("QUOTAWEB_LDAP_USER_FILTER", DEFAULT_USER_FILTER, environ=environ)
    if "%(user)s" not in user_filter:
        raise ImproperlyConfigured(ERR_FILTER.format(value=user_filter))
    if not (user_filter.startswith("(") and user_filter.endswith(")")):
        raise ImproperlyConfigured(ERR_FILTER_PARENS.format(value=user_filter))
    group_base = env_str("QUOTAWEB_LDAP_GROUP_BASE", "", environ=environ)
    if not group_base:
        for name, groups in (("QUOTAWEB_ADMIN_GROUPS", admin_groups),
                             ("QUOTAWEB_VIEWER_GROUPS", viewer_groups)):
            if groups:
                raise ImproperlyConfigured(ERR_ROLES_WITHOUT_GROUPS.format(name=name))
    ca_file = env_str("QUOTAWEB_LDAP_CA_FILE", "", environ=environ)
    if ca_file and not Path(ca_file).is_file():
        raise ImproperlyConfigured(ERR_CA_FILE.format(path=ca_file))
    return {
        "url": url, "start_tls": start_tls, "bind_dn": bind_dn, "bind_password": bind_password,
        "user_base": user_base, "user_filter": user_filter, "dn_template": dn_template,
        "group_base": group_base,
        "group_type": env_str("QUOTAWEB_LDAP_GROUP_TYPE", "posix", choices=GROUP_TYPES,
                              environ=environ),
        "ca_file": ca_file,
        "cache_seconds": env_int("QUOTAWEB_LDAP_CACHE_SECONDS", 60, minimum=0, maximum=86_400,
                                 environ=environ),
        "timeout_seconds": env_int("QUOTAWEB_LDAP_TIMEOUT_SECONDS", 5, minimum=1, maximum=60,
                                   environ=environ),
    }


def auth_ldap_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """django-auth-ldap's settings for ``ldap_settings``' values (imports python-ldap, which
    only a site using LDAP needs to have working)."""
    import ldap
    from django_auth_ldap.config import GroupOfNamesType, LDAPSearch, PosixGroupType

    options: dict[int, Any] = {
        ldap.OPT_REFERRALS: 0,
        # Every wait has a bound: connecting, and each operation.
        ldap.OPT_NETWORK_TIMEOUT: values["timeout_seconds"],
        ldap.OPT_TIMEOUT: values["timeout_seconds"],
    }
    if values["ca_file"]:
        options[ldap.OPT_X_TLS_CACERTFILE] = values["ca_file"]
        options[ldap.OPT_X_TLS_REQUIRE_CERT] = ldap.OPT_X_TLS_DEMAND
        # Last: makes a TLS context with the options above for this connection only.
        options[ldap.OPT_X_TLS_NEWCTX] = 0
    found: dict[str, Any] = {
        "AUTH_LDAP_SERVER_URI": values["url"],
        "AUTH_LDAP_START_TLS": values["start_tls"],
        "AUTH_LDAP_BIND_DN": values["bind_dn"],
        "AUTH_LDAP_BIND_PASSWORD": values["bind_password"],
        "AUTH_LDAP_CONNECTION_OPTIONS": options,
        "AUTH_LDAP_USER_ATTR_MAP": {"first_name": "givenName", "last_name": "sn", "email": "mail"},
        # quotaweb keeps the groups itself (DirectoryIdentity) and reads them again after
        # QUOTAWEB_LDAP_CACHE_SECONDS; a second cache in django-auth-ldap would make that later.
        "AUTH_LDAP_CACHE_TIMEOUT": 0,
        "AUTH_LDAP_MIRROR_GROUPS": False,
        "AUTH_LDAP_ALWAYS_UPDATE_USER": True,
    }
    if values["dn_template"]:
        found["AUTH_LDAP_USER_DN_TEMPLATE"] = values["dn_template"]
        # Bound as the person, the groups are read with their rights.
        found["AUTH_LDAP_BIND_AS_AUTHENTICATING_USER"] = True
    else:
        found["AUTH_LDAP_USER_SEARCH"] = LDAPSearch(
            values["user_base"], ldap.SCOPE_SUBTREE, values["user_filter"]
        )
    if values["group_base"]:
        kind = values["group_type"]
        found["AUTH_LDAP_GROUP_SEARCH"] = LDAPSearch(
            values["group_base"], ldap.SCOPE_SUBTREE, f"(objectClass={GROUP_CLASSES[kind]})"
        )
        found["AUTH_LDAP_GROUP_TYPE"] = PosixGroupType() if kind == "posix" else (
            GroupOfNamesType()
        )
    return found

"""Strict readers for settings that come from the environment.

Every helper returns the default when the variable is unset (or set to an empty string) and raises
``ImproperlyConfigured`` naming the variable and the accepted values when it is set to something it
cannot read. A typo such as ``QUOTAWEB_DEBUG=maybe`` stops the process instead of quietly meaning
"off".
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})

_UNSET = object()


def _raw(name: str, environ: Mapping[str, str] | None) -> str | None:
    value = (os.environ if environ is None else environ).get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def _missing(name: str, default):
    if default is _UNSET:
        raise ImproperlyConfigured(f"The environment variable {name} must be set.")
    return default


def env_str(
    name: str,
    default=_UNSET,
    *,
    choices: tuple[str, ...] | None = None,
    environ: Mapping[str, str] | None = None,
):
    """A string; with ``choices`` it must be one of them (compared case-sensitively)."""
    value = _raw(name, environ)
    if value is None:
        return _missing(name, default)
    if choices is not None and value not in choices:
        allowed = ", ".join(choices)
        raise ImproperlyConfigured(f"{name}={value!r} is not one of: {allowed}.")
    return value


def env_bool(name: str, default=_UNSET, *, environ: Mapping[str, str] | None = None):
    """``1/true/yes/on`` or ``0/false/no/off`` (any case); anything else is an error."""
    value = _raw(name, environ)
    if value is None:
        return _missing(name, default)
    word = value.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name}={value!r} is not a boolean; use one of 1, true, yes, on or 0, false, no, off."
    )


def env_int(
    name: str,
    default=_UNSET,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    environ: Mapping[str, str] | None = None,
):
    """A whole number in decimal, optionally within ``[minimum, maximum]``."""
    value = _raw(name, environ)
    if value is None:
        return _missing(name, default)
    try:
        number = int(value, 10)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} is below the minimum of {minimum}.")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"{name}={number} is above the maximum of {maximum}.")
    return number


def env_list(name: str, default=_UNSET, *, environ: Mapping[str, str] | None = None):
    """A comma-separated list; items are stripped and empty items are an error."""
    value = _raw(name, environ)
    if value is None:
        return _missing(name, default)
    items = [item.strip() for item in value.split(",")]
    if any(not item for item in items):
        raise ImproperlyConfigured(
            f"{name}={value!r} has an empty item in its comma-separated list."
        )
    return items


POSTGRES_SCHEMES = frozenset({"postgres", "postgresql"})


def parse_database_url(url: str, *, name: str = "DATABASE_URL") -> dict:
    """Turn ``postgres://user:pass@host:port/dbname?sslmode=require`` into a Django DATABASES entry.

    User and password may be percent-encoded. Query parameters become connection OPTIONS. Only
    PostgreSQL is understood: SQLite is what you get by leaving the variable unset.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not a valid URL: {exc}.") from None
    if parts.scheme not in POSTGRES_SCHEMES:
        raise ImproperlyConfigured(
            f"{name} must start with postgres:// or postgresql://, not {parts.scheme or 'nothing'}://."
        )
    database = unquote(parts.path.lstrip("/"))
    if not database or "/" in database:
        raise ImproperlyConfigured(f"{name} must name one database after the host, e.g. /quotaweb.")
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": database,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": unquote(parts.hostname or ""),
        "PORT": str(port) if port is not None else "",
        "OPTIONS": options,
    }

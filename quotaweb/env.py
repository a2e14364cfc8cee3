"""Strict readers for settings that come from the environment.

Every helper returns the default when the variable is unset (or set to an empty string) and raises
``ImproperlyConfigured`` naming the variable and the accepted values when it is set to something it
cannot read. A typo such as ``QUOTAWEB_DEBUG=maybe`` stops the process instead of quietly meaning
"off".
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
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


SQLITE_ENGINE = "django.db.backends.sqlite3"
POSTGRES_ENGINE = "django.db.backends.postgresql"
SQLITE_SCHEMES = frozenset({"sqlite"})
POSTGRES_SCHEMES = frozenset({"postgres", "postgresql"})
URL_FORMS = (
    "sqlite:///relative/path.sqlite3, sqlite:////absolute/path.sqlite3, "
    "postgres://user:password@host:port/name (or postgresql://)"
)


def parse_database_url(
    url: str, *, name: str = "DATABASE_URL", base_dir: Path | str | None = None
) -> dict:
    """Turn a database URL into the start of a Django DATABASES entry (dj-database-url reads it).

    Two kinds are understood, each in the usual form:

    - ``sqlite:///relative/path`` (relative to ``base_dir``, default the working directory) and
      ``sqlite:////absolute/path``: ``{"ENGINE": sqlite3, "NAME": <absolute path>}``;
    - ``postgres://user:pass@host:port/dbname?sslmode=require`` (or ``postgresql://``): ENGINE,
      NAME, USER, PASSWORD, HOST, PORT (a string, "" for the default) and OPTIONS from the query.

    User and password may be percent-encoded. Anything else (another scheme, SQLite in memory or
    on a host, a PostgreSQL URL without exactly one database name, a port that is not a number)
    raises ``ImproperlyConfigured`` naming ``name``; the message never repeats the password.
    """
    text = url.strip()
    scheme, separator, _ = text.partition("://")
    scheme = scheme.lower() if separator else ""
    if scheme not in SQLITE_SCHEMES | POSTGRES_SCHEMES:
        raise ImproperlyConfigured(
            f"{name} must start with sqlite://, postgres:// or postgresql://, not "
            f"{scheme or 'nothing'}://. The forms are: {URL_FORMS}."
        )
    if scheme in SQLITE_SCHEMES and ":memory:" in text:
        raise ImproperlyConfigured(_sqlite_no_file(name, text))
    try:
        # Checked here first: dj-database-url's own error does not say what is wrong.
        parts = urlsplit(text)
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not a valid URL: {exc}.") from None
    try:
        parsed = dict(dj_database_url.parse(text))
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not a valid database URL: {exc}") from None
    if scheme in SQLITE_SCHEMES:
        return _sqlite_database(parts, parsed, name=name, base_dir=base_dir)
    database = parsed.get("NAME", "")
    if not database or "/" in database:
        raise ImproperlyConfigured(
            f"{name} must name one database after the host, e.g. postgres://host/quotaweb."
        )
    port = parsed.get("PORT", "")
    return {
        "ENGINE": POSTGRES_ENGINE,
        "NAME": database,
        "USER": parsed.get("USER", ""),
        "PASSWORD": parsed.get("PASSWORD", ""),
        "HOST": parsed.get("HOST", ""),
        "PORT": "" if port in ("", None) else str(port),
        "OPTIONS": dict(parsed.get("OPTIONS", {})),
    }


def _sqlite_database(parts, parsed: dict, *, name: str, base_dir: Path | str | None) -> dict:
    if parts.netloc:
        raise ImproperlyConfigured(
            f"{name}: a SQLite URL names a file, not a host ({parts.netloc!r}); use "
            "sqlite:///relative/path.sqlite3 (three slashes) or sqlite:////absolute/path.sqlite3."
        )
    if parts.query:
        raise ImproperlyConfigured(
            f"{name}: a SQLite URL takes no options (quotaweb sets WAL and its own); remove "
            f"?{parts.query}."
        )
    path = parsed.get("NAME", "")
    if not path or path == ":memory:" or path.endswith("/"):
        raise ImproperlyConfigured(_sqlite_no_file(name, parts.geturl()))
    file = Path(path)
    if not file.is_absolute():
        file = Path(base_dir if base_dir is not None else Path.cwd()) / file
    return {"ENGINE": SQLITE_ENGINE, "NAME": file}


def _sqlite_no_file(name: str, url: str) -> str:
    return (
        f"{name}={url!r} names no database file (an in-memory database would be lost at exit "
        "and not shared between processes); use sqlite:///relative/path.sqlite3 or "
        "sqlite:////absolute/path.sqlite3."
    )

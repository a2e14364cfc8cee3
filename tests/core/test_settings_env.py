"""The environment readers fail loudly on values they cannot read, and settings use them."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from quotaweb.env import env_bool, env_int, env_list, env_str, parse_database_url

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1", True),
        ("true", True),
        ("YES", True),
        (" on ", True),
        ("0", False),
        ("False", False),
        ("no", False),
        ("OFF", False),
    ],
)
def test_env_bool_reads_the_usual_words(raw, expected):
    assert env_bool("QW_FLAG", environ={"QW_FLAG": raw}) is expected


@pytest.mark.parametrize("raw", ["maybe", "2", "y", "truthy", "-1"])
def test_env_bool_rejects_anything_else(raw):
    with pytest.raises(ImproperlyConfigured, match=r"QW_FLAG=.* is not a boolean"):
        env_bool("QW_FLAG", False, environ={"QW_FLAG": raw})


def test_unset_or_blank_gives_the_default():
    assert env_bool("QW_FLAG", True, environ={}) is True
    assert env_bool("QW_FLAG", True, environ={"QW_FLAG": "  "}) is True
    assert env_int("QW_N", 3, environ={}) == 3
    assert env_str("QW_S", "x", environ={"QW_S": ""}) == "x"
    assert env_list("QW_L", ["a"], environ={}) == ["a"]


def test_missing_without_default_names_the_variable():
    with pytest.raises(ImproperlyConfigured, match="QW_REQUIRED must be set"):
        env_str("QW_REQUIRED", environ={})


def test_env_int_parses_and_checks_bounds():
    assert env_int("QW_N", environ={"QW_N": " 42 "}) == 42
    with pytest.raises(ImproperlyConfigured, match="is not a whole number"):
        env_int("QW_N", environ={"QW_N": "4.5"})
    with pytest.raises(ImproperlyConfigured, match="below the minimum of 1"):
        env_int("QW_N", environ={"QW_N": "0"}, minimum=1)
    with pytest.raises(ImproperlyConfigured, match="above the maximum of 10"):
        env_int("QW_N", environ={"QW_N": "11"}, maximum=10)


def test_env_str_checks_choices():
    assert env_str("QW_S", environ={"QW_S": "INFO"}, choices=("INFO", "DEBUG")) == "INFO"
    with pytest.raises(ImproperlyConfigured, match="is not one of: INFO, DEBUG"):
        env_str("QW_S", environ={"QW_S": "info"}, choices=("INFO", "DEBUG"))


def test_env_list_splits_on_commas_and_rejects_empty_items():
    assert env_list("QW_L", environ={"QW_L": "a.example, b.example"}) == ["a.example", "b.example"]
    with pytest.raises(ImproperlyConfigured, match="empty item"):
        env_list("QW_L", environ={"QW_L": "a,,b"})


def test_database_url_for_postgres():
    db = parse_database_url("postgres://quota:s%40cret@db.internal:6543/quotaweb?sslmode=require")

    assert db == {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "quotaweb",
        "USER": "quota",
        "PASSWORD": "s@cret",
        "HOST": "db.internal",
        "PORT": "6543",
        "OPTIONS": {"sslmode": "require"},
    }


def test_database_url_with_defaults_and_postgresql_scheme():
    db = parse_database_url("postgresql://postgres@127.0.0.1/quotaweb")

    assert (db["USER"], db["PASSWORD"], db["HOST"], db["PORT"], db["NAME"]) == (
        "postgres",
        "",
        "127.0.0.1",
        "",
        "quotaweb",
    )


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/db", "must start with postgres://"),
        ("sqlite:///data/x.sqlite3", "must start with postgres://"),
        ("postgres://u@h", "must name one database"),
        ("postgres://u@h/", "must name one database"),
        ("postgres://u@h:notaport/db", "is not a valid URL"),
    ],
)
def test_database_url_rejects_what_it_cannot_use(url, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        parse_database_url(url)


def load_settings(**env):
    """Import quotaweb.settings in a clean interpreter with the given environment."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("QUOTAWEB_")}
    clean.pop("DATABASE_URL", None)
    clean.pop("REDIS_URL", None)
    clean.update(env)
    script = (
        "import json, quotaweb.settings as s; "
        "print(json.dumps({'debug': s.DEBUG, 'db': s.DATABASES['default'], "
        "'layer': s.CHANNEL_LAYERS['default']['BACKEND'], 'apps': s.INSTALLED_APPS}, default=str))"
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_settings_refuse_a_bad_debug_value():
    result = load_settings(QUOTAWEB_DEBUG="maybe", QUOTAWEB_SECRET_KEY="k")

    assert result.returncode != 0
    assert "QUOTAWEB_DEBUG='maybe' is not a boolean" in result.stderr


def test_settings_require_a_secret_key_unless_debug():
    result = load_settings(QUOTAWEB_DEBUG="0")

    assert result.returncode != 0
    assert "QUOTAWEB_SECRET_KEY must be set" in result.stderr
    assert load_settings(QUOTAWEB_DEBUG="1").returncode == 0


def test_settings_default_to_sqlite_in_memory_layer_and_daphne_first():
    import json

    result = load_settings(QUOTAWEB_SECRET_KEY="k")
    assert result.returncode == 0, result.stderr
    settings = json.loads(result.stdout)

    assert settings["debug"] is False
    assert settings["db"]["ENGINE"] == "django.db.backends.sqlite3"
    assert settings["db"]["NAME"].endswith("quotaweb.sqlite3")
    assert settings["db"]["TEST"]["NAME"].endswith("test-quotaweb.sqlite3")
    assert settings["layer"] == "channels.layers.InMemoryChannelLayer"
    assert settings["apps"][0] == "daphne"


def test_settings_use_postgres_pool_and_redis_when_urls_are_set():
    import json

    result = load_settings(
        QUOTAWEB_SECRET_KEY="k",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/quotaweb",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )
    assert result.returncode == 0, result.stderr
    settings = json.loads(result.stdout)

    db = settings["db"]
    assert db["ENGINE"] == "quotaweb.postgresql"  # Django's, with a pool that sweeps
    assert db["CONN_MAX_AGE"] == 0
    assert db["OPTIONS"]["pool"]["max_size"] >= 1
    assert db["TEST"] == {"NAME": "test_quotaweb"}
    # The pool checks a connection before handing it out (a dropped one is replaced).
    assert db["CONN_HEALTH_CHECKS"] is True
    assert settings["layer"] == "quotaweb.channel_layer.ResilientRedisChannelLayer"

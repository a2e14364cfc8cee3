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

    assert (db["ENGINE"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"], db["NAME"]) == (
        "django.db.backends.postgresql",
        "postgres",
        "",
        "127.0.0.1",
        "",
        "quotaweb",
    )
    assert db["OPTIONS"] == {}


def test_database_url_for_a_relative_sqlite_file(tmp_path):
    db = parse_database_url("sqlite:///var/quotaweb.sqlite3", base_dir=tmp_path)

    assert db == {
        "ENGINE": "django.db.backends.sqlite3", "NAME": tmp_path / "var" / "quotaweb.sqlite3",
    }


def test_database_url_for_an_absolute_sqlite_file(tmp_path):
    db = parse_database_url(f"sqlite:///{tmp_path}/quotaweb.sqlite3", base_dir="/elsewhere")

    assert str(tmp_path).startswith("/")  # so the URL above has four slashes
    assert db == {"ENGINE": "django.db.backends.sqlite3", "NAME": tmp_path / "quotaweb.sqlite3"}


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/db", "must start with sqlite://, postgres:// or postgresql://, not mysql://"),
        ("data/x.sqlite3", "not nothing://"),
        ("sqlite://", "names no database file"),
        ("sqlite:///", "names no database file"),
        ("sqlite://:memory:", "names no database file"),
        ("sqlite://db.internal/x.sqlite3", "names a file, not a host"),
        ("sqlite:///x.sqlite3?timeout=5", "takes no options"),
        ("postgres://u@h", "must name one database"),
        ("postgres://u@h/", "must name one database"),
        ("postgres://u@h/a/b", "must name one database"),
        ("postgres://u@h:notaport/db", "is not a valid URL"),
        ("postgres://u:p@[::1/db", "is not a valid URL"),
    ],
)
def test_database_url_rejects_what_it_cannot_use(url, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        parse_database_url(url)


def test_a_bad_database_url_does_not_repeat_the_password():
    with pytest.raises(ImproperlyConfigured) as caught:
        parse_database_url("postgres://quota:hunter2@db.internal:notaport/quotaweb")

    assert "hunter2" not in str(caught.value)
    assert str(caught.value).startswith("DATABASE_URL ")


def load_settings(**env):
    """Import quotaweb.settings in a clean interpreter with the given environment."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("QUOTAWEB_")}
    clean.pop("DATABASE_URL", None)
    clean.pop("REDIS_URL", None)
    clean.update(env)
    script = (
        "import json, quotaweb.settings as s; "
        "print(json.dumps({'debug': s.DEBUG, 'db': s.DATABASES['default'], "
        "'layer': s.CHANNEL_LAYERS['default']['BACKEND'], 'apps': s.INSTALLED_APPS, "
        "'https': {k: getattr(s, k, None) for k in ("
        "'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SECURE_SSL_REDIRECT', "
        "'SECURE_REDIRECT_EXEMPT', 'SECURE_PROXY_SSL_HEADER', 'SECURE_HSTS_SECONDS', "
        "'SECURE_HSTS_INCLUDE_SUBDOMAINS', 'SECURE_HSTS_PRELOAD', 'SILENCED_SYSTEM_CHECKS', "
        "'CSRF_TRUSTED_ORIGINS')}}, default=str))"
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


def test_settings_take_a_sqlite_url_relative_to_the_project_with_the_usual_options():
    import json

    result = load_settings(QUOTAWEB_SECRET_KEY="k", DATABASE_URL="sqlite:///data/other.sqlite3")
    assert result.returncode == 0, result.stderr
    db = json.loads(result.stdout)["db"]

    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert db["NAME"] == str(ROOT / "data" / "other.sqlite3")
    assert db["TEST"] == {"NAME": str(ROOT / "data" / "test-other.sqlite3")}
    assert "journal_mode=WAL" in db["OPTIONS"]["init_command"]
    assert db["OPTIONS"]["transaction_mode"] == "IMMEDIATE"


def test_settings_take_an_absolute_sqlite_url(tmp_path):
    import json

    url = f"sqlite:///{tmp_path}/quota.sqlite3"
    result = load_settings(QUOTAWEB_SECRET_KEY="k", DATABASE_URL=url)
    assert result.returncode == 0, result.stderr
    db = json.loads(result.stdout)["db"]

    assert db["NAME"] == str(tmp_path / "quota.sqlite3")
    assert db["TEST"] == {"NAME": str(tmp_path / "test-quota.sqlite3")}


def test_settings_keep_the_pooled_backend_for_a_postgresql_url():
    import json

    result = load_settings(
        QUOTAWEB_SECRET_KEY="k", DATABASE_URL="postgresql://q:pw@db.internal:6543/quota?sslmode=require"
    )
    assert result.returncode == 0, result.stderr
    db = json.loads(result.stdout)["db"]

    assert db["ENGINE"] == "quotaweb.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "quota", "q", "pw", "db.internal", "6543"
    )
    assert db["OPTIONS"]["sslmode"] == "require"
    assert db["OPTIONS"]["pool"] == {
        "min_size": 1, "max_size": 10, "timeout": 2,
        "connection_class": "<class 'quotaweb.postgresql.waits.DeadlineConnection'>",
    }
    assert db["TEST"] == {"NAME": "test_quota"}


def test_every_database_wait_is_bounded_by_default():
    import json

    result = load_settings(QUOTAWEB_SECRET_KEY="k", DATABASE_URL="postgres://db.internal/quota")
    assert result.returncode == 0, result.stderr
    options = json.loads(result.stdout)["db"]["OPTIONS"]

    assert options["connect_timeout"] == 2
    assert options["options"] == (
        "-c statement_timeout=2000 -c lock_timeout=1000 "
        "-c idle_in_transaction_session_timeout=10000"
    )
    assert (options["keepalives"], options["tcp_user_timeout"]) == (1, 20_000)
    sqlite = json.loads(load_settings(QUOTAWEB_SECRET_KEY="k").stdout)["db"]["OPTIONS"]
    assert sqlite["timeout"] == 2.0


def test_the_bounds_come_from_the_environment_beside_the_url_options():
    import json

    result = load_settings(
        QUOTAWEB_SECRET_KEY="k",
        DATABASE_URL="postgres://db.internal/quota?options=-c%20search_path%3Dq",
        QUOTAWEB_DB_CONNECT_TIMEOUT="5", QUOTAWEB_DB_STATEMENT_TIMEOUT_MS="0",
        QUOTAWEB_DB_LOCK_TIMEOUT_MS="300", QUOTAWEB_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS="0",
    )
    assert result.returncode == 0, result.stderr
    options = json.loads(result.stdout)["db"]["OPTIONS"]

    assert options["connect_timeout"] == 5
    assert options["options"] == (
        "-c search_path=q -c statement_timeout=0 -c lock_timeout=300 "
        "-c idle_in_transaction_session_timeout=0"
    )
    sqlite = load_settings(QUOTAWEB_SECRET_KEY="k", QUOTAWEB_SQLITE_BUSY_TIMEOUT_MS="500")
    assert json.loads(sqlite.stdout)["db"]["OPTIONS"]["timeout"] == 0.5


@pytest.mark.parametrize(("name", "value", "says"), [
    ("QUOTAWEB_DB_STATEMENT_TIMEOUT_MS", "2s", "is not a whole number"),
    ("QUOTAWEB_DB_STATEMENT_TIMEOUT_MS", "-1", "below the minimum of 0"),
    ("QUOTAWEB_DB_CONNECT_TIMEOUT", "1", "below the minimum of 2"),
    ("QUOTAWEB_DB_LOCK_TIMEOUT_MS", "soon", "is not a whole number"),
    ("QUOTAWEB_SQLITE_BUSY_TIMEOUT_MS", "0", "below the minimum of 1"),
])
def test_a_bad_bound_stops_the_process_naming_it(name, value, says):
    url = "sqlite:///data/q.sqlite3" if "SQLITE" in name else "postgres://db.internal/quota"
    result = load_settings(QUOTAWEB_SECRET_KEY="k", DATABASE_URL=url, **{name: value})

    assert result.returncode != 0
    assert f"{name}=" in result.stderr
    assert says in result.stderr


def test_settings_refuse_a_bad_database_url_by_name():
    result = load_settings(QUOTAWEB_SECRET_KEY="k", DATABASE_URL="mysql://u@h/quotaweb")

    assert result.returncode != 0
    assert "DATABASE_URL must start with sqlite://, postgres:// or postgresql://" in result.stderr


def test_plain_http_sets_no_tls_settings():
    import json

    result = load_settings(QUOTAWEB_SECRET_KEY="k")
    assert result.returncode == 0, result.stderr
    https = json.loads(result.stdout)["https"]

    assert https["SESSION_COOKIE_SECURE"] is None  # Django's default (False) applies
    assert https["SECURE_SSL_REDIRECT"] is None
    assert https["SECURE_PROXY_SSL_HEADER"] is None


def test_behind_tls_cookies_are_secure_http_redirects_and_probes_are_exempt():
    import json

    result = load_settings(
        QUOTAWEB_SECRET_KEY="k", QUOTAWEB_HTTPS="1",
        QUOTAWEB_CSRF_TRUSTED_ORIGINS="https://quota.example.org,https://q.example.org",
    )
    assert result.returncode == 0, result.stderr
    https = json.loads(result.stdout)["https"]

    assert https["SESSION_COOKIE_SECURE"] is True
    assert https["CSRF_COOKIE_SECURE"] is True
    assert https["SECURE_SSL_REDIRECT"] is True
    assert https["SECURE_REDIRECT_EXEMPT"] == ["^healthz$", "^metrics$"]
    assert https["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert https["SECURE_HSTS_SECONDS"] == 31_536_000
    assert https["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is False
    assert https["SECURE_HSTS_PRELOAD"] is False
    # check --deploy would warn about both; leaving them off is the documented choice.
    assert https["SILENCED_SYSTEM_CHECKS"] == ["security.W005", "security.W021"]
    assert https["CSRF_TRUSTED_ORIGINS"] == ["https://quota.example.org", "https://q.example.org"]


def test_hsts_subdomains_and_preload_only_when_asked():
    import json

    result = load_settings(
        QUOTAWEB_SECRET_KEY="k", QUOTAWEB_HTTPS="1", QUOTAWEB_HSTS_SECONDS="3600",
        QUOTAWEB_HSTS_INCLUDE_SUBDOMAINS="1", QUOTAWEB_HSTS_PRELOAD="yes",
        QUOTAWEB_SSL_REDIRECT="0",
    )
    assert result.returncode == 0, result.stderr
    https = json.loads(result.stdout)["https"]

    assert https["SECURE_HSTS_SECONDS"] == 3600
    assert https["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert https["SECURE_HSTS_PRELOAD"] is True
    assert https["SILENCED_SYSTEM_CHECKS"] == []
    assert https["SECURE_SSL_REDIRECT"] is False

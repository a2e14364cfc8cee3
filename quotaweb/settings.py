"""Django settings for quotaweb, read from the environment (docs/deployment.md, "Every variable").

Nothing here starts an engine: engines are created explicitly at start-up (see
``quotaweb.engine.gateway``); ``QUOTAWEB_CONFIG`` only names the file to load.
"""

from __future__ import annotations

import logging
import os
import re
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from quotaweb.env import env_bool, env_int, env_list, env_str, parse_database_url
from quotaweb.ldap_settings import auth_ldap_settings, ldap_settings

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("QUOTAWEB_DATA_DIR", str(BASE_DIR / "data")))
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("QUOTAWEB_DEBUG", False)

SECRET_KEY = env_str("QUOTAWEB_SECRET_KEY", None)
if SECRET_KEY is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "QUOTAWEB_SECRET_KEY must be set unless QUOTAWEB_DEBUG is on "
            "(bin/run turns debug on for the local demo)."
        )
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("QUOTAWEB_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("QUOTAWEB_CSRF_TRUSTED_ORIGINS", [])

# Behind TLS: a reverse proxy terminates HTTPS and forwards plain HTTP with X-Forwarded-Proto
# (docs/deployment.md). QUOTAWEB_HTTPS=1 says so; then cookies travel only over HTTPS, browsers
# are told to use nothing else (HSTS), plain-HTTP requests are redirected, and the proxy's
# X-Forwarded-Proto is trusted to say which scheme the browser used. Only turn it on behind a
# proxy that sets that header itself (a client could otherwise claim https).
QUOTAWEB_HTTPS = env_bool("QUOTAWEB_HTTPS", False)
if QUOTAWEB_HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("QUOTAWEB_SSL_REDIRECT", True)
    # Probes and scrapers inside the cluster call the pods over plain HTTP.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
    SECURE_HSTS_SECONDS = env_int("QUOTAWEB_HSTS_SECONDS", 31_536_000, minimum=0)
    # Subdomains and the browsers' preload list bind more than this site: only when asked.
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("QUOTAWEB_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = env_bool("QUOTAWEB_HSTS_PRELOAD", False)
    # check --deploy warns about both while they are off; off is the choice made above.
    SILENCED_SYSTEM_CHECKS = [
        *([] if SECURE_HSTS_INCLUDE_SUBDOMAINS else ["security.W005"]),
        *([] if SECURE_HSTS_PRELOAD else ["security.W021"]),
    ]

INSTALLED_APPS = [
    # daphne first: it replaces runserver and installs the Twisted reactor early.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "axes",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "quotaweb.engine",
    "quotaweb.leases",
    "quotaweb.core",
    "quotaweb.config",
    "quotaweb.accounts",
    "quotaweb.allocations",
    "quotaweb.api",
    "quotaweb.usage",
    "quotaweb.teams",
    "quotaweb.elastic",
    "quotaweb.quotatrees",
    "quotaweb.whatif",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Above WhiteNoise: static files get the policy too (a stray SVG opened directly runs no
    # script).
    "csp.middleware.CSPMiddleware",
    # WhiteNoise, with gzip copies of the text files (no collectstatic step).
    "quotaweb.compression.CompressedStaticFiles",
    # Below WhiteNoise (it answers static files itself) and above everything that writes the
    # body, so the whole body is what gets compressed: quotaweb.compression.
    "quotaweb.compression.CompressedAnswers",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "quotaweb.api.parameters.RepeatedParametersRefused",
    # Last, as django-axes asks: it turns a refused sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Content-Security-Policy (django-csp) on every answer: scripts, styles, images, fonts and
# connections (the live sockets: 'self' covers ws: and wss: to the same host and port) from this
# site only; no inline script or style (sizes that figures decide are classes:
# quotaweb/css_sizes.py), no eval, no plugins, no framing, and forms post only here.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

ROOT_URLCONF = "quotaweb.urls"
WSGI_APPLICATION = "quotaweb.wsgi.application"
ASGI_APPLICATION = "quotaweb.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "quotaweb.core.context_processors.product",
                "quotaweb.accounts.context_processors.roles",
                "quotaweb.accounts.context_processors.directory",
                "quotaweb.config.context_processors.draft",
                "quotaweb.whatif.context_processors.replay",
            ],
        },
    },
]

# Database: a SQLite file under data/ unless DATABASE_URL names another SQLite file
# (sqlite:///relative/to/the/project, sqlite:////absolute) or a PostgreSQL server (postgres://).
DATABASE_URL = env_str("DATABASE_URL", None)
_database = (
    parse_database_url(DATABASE_URL, base_dir=BASE_DIR) if DATABASE_URL
    else {"ENGINE": "django.db.backends.sqlite3", "NAME": DATA_DIR / "quotaweb.sqlite3"}
)
# Bounded waits (docs/deployment.md, "When the database is slow or away"): no statement, lock or
# connection waits longer than these, so a stalled or stopped database is a 503 within seconds.
# The statement bound is also the budget of an allocation, its partition lock wait included; 0
# lifts it (for a migration of a large ledger, say).
QUOTAWEB_DB_STATEMENT_TIMEOUT_MS = env_int(
    "QUOTAWEB_DB_STATEMENT_TIMEOUT_MS", 2000, minimum=0, maximum=3_600_000
)
if _database["ENGINE"] == "django.db.backends.postgresql":
    from quotaweb.postgresql.waits import DeadlineConnection, session_options

    # Under ASGI, persistent connections are off and psycopg's pool reuses connections instead.
    _database["CONN_MAX_AGE"] = 0
    _database["OPTIONS"]["pool"] = {
        "min_size": env_int("QUOTAWEB_DB_POOL_MIN", 1, minimum=0),
        "max_size": env_int("QUOTAWEB_DB_POOL_MAX", 10, minimum=1),
        "timeout": env_int("QUOTAWEB_DB_POOL_TIMEOUT", 2, minimum=1),
        # Gives up on a statement whose answer is late (a frozen server answers nothing).
        "connection_class": DeadlineConnection,
    }
    _database["OPTIONS"].update(session_options(
        connect_timeout=env_int("QUOTAWEB_DB_CONNECT_TIMEOUT", 2, minimum=2, maximum=600),
        statement_timeout_ms=QUOTAWEB_DB_STATEMENT_TIMEOUT_MS,
        lock_timeout_ms=env_int("QUOTAWEB_DB_LOCK_TIMEOUT_MS", 1000, minimum=0),
        idle_in_transaction_ms=env_int(
            "QUOTAWEB_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS", 10_000, minimum=0
        ),
        options=_database["OPTIONS"].get("options", ""),
    ))
    # With the pool, Django turns this into the pool's check (ConnectionPool.check_connection):
    # a connection the server dropped (a restart, pg_terminate_backend, an idle timeout) is found
    # when it is handed out and replaced, instead of failing the request that gets it; the
    # backend makes the first dead one replace all the others (quotaweb.postgresql).
    _database["CONN_HEALTH_CHECKS"] = True
    _database["ENGINE"] = "quotaweb.postgresql"
    # Named explicitly: live-server tests answer 500 on PostgreSQL without it.
    _database["TEST"] = {"NAME": f"test_{_database['NAME']}"}
else:
    _sqlite_file = Path(_database["NAME"])
    _database.update({
        "NAME": _sqlite_file,
        # Kept between requests by the server's request threads (see quotaweb.asgi).
        "CONN_MAX_AGE": env_int("QUOTAWEB_DB_CONN_MAX_AGE", 300, minimum=0),
        "CONN_HEALTH_CHECKS": True,
        # WAL: readers (the pages) never wait for the writer, and a commit is one append to the
        # log; synchronous=FULL keeps every commit on disk before it returns (the ledger's rule).
        # A 64 MiB page cache keeps a large ledger's index in memory.
        "OPTIONS": {
            # How long a statement waits for another process's write lock before "database is
            # locked" (a 503): SQLite's one bound, the busy timeout.
            "timeout": env_int("QUOTAWEB_SQLITE_BUSY_TIMEOUT_MS", 2000, minimum=1) / 1000,
            "transaction_mode": "IMMEDIATE",
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-65536;"
            ),
        },
        # A file beside it, not memory: a live server in another process must see the same
        # database.
        "TEST": {"NAME": str(_sqlite_file.with_name(f"test-{_sqlite_file.name}"))},
    })
DATABASES = {"default": _database}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Channels: in-memory for one process, Redis when REDIS_URL is set (several web processes).
REDIS_URL = env_str("REDIS_URL", None)
if REDIS_URL:
    from quotaweb.channel_layer import redis_layer_config

    CHANNEL_LAYERS = {
        "default": {
            # channels-redis's layer, with a receive that outlives a lost Redis.
            "BACKEND": "quotaweb.channel_layer.ResilientRedisChannelLayer",
            # Reads may wait 15 s, longer than the layer's 5 s blocking pop (redis-py 8's default
            # of 5 s timed out every idle receive); see redis_host for the numbers. Sized for
            # the sockets a process holds: docs/deployment.md, "Many live sockets".
            "CONFIG": redis_layer_config(
                REDIS_URL,
                prefix=env_str("QUOTAWEB_CHANNEL_PREFIX", "quotaweb"),
                capacity=env_int("QUOTAWEB_CHANNEL_CAPACITY", 10_000, minimum=100),
                connections=env_int("QUOTAWEB_REDIS_CONNECTIONS", 1000, minimum=10),
            ),
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Accounts: Django's login and logout pages, with quotaweb's templates (see quotaweb.accounts).
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "core:home"
LOGOUT_REDIRECT_URL = "accounts:login"

# Sign-in throttling (django-axes): after QUOTAWEB_LOGIN_FAILURES wrong passwords for one account
# (from anywhere) or from one address (for any accounts), sign-ins there are refused, the right
# password too, with 429 and Retry-After, until QUOTAWEB_LOGIN_COOLOFF_SECONDS pass without
# another try. API tokens and sessions never sign in through it, so they are never locked out.
QUOTAWEB_LOGIN_FAILURES = env_int("QUOTAWEB_LOGIN_FAILURES", 10, minimum=1)
QUOTAWEB_LOGIN_COOLOFF_SECONDS = env_int("QUOTAWEB_LOGIN_COOLOFF_SECONDS", 900, minimum=1)

# Roles of directory users (LDAP, OpenID Connect) from their directory groups, read on every
# request: docs/authentication.md. A directory user in neither list gets QUOTAWEB_DEFAULT_ROLE
# ("member": their own and their groups' usage only; "viewer": every page, read-only). Local
# accounts keep their rule (staff or the quota-admins group).
QUOTAWEB_ADMIN_GROUPS = env_list("QUOTAWEB_ADMIN_GROUPS", [])
QUOTAWEB_VIEWER_GROUPS = env_list("QUOTAWEB_VIEWER_GROUPS", [])
QUOTAWEB_DEFAULT_ROLE = env_str("QUOTAWEB_DEFAULT_ROLE", "member", choices=("member", "viewer"))
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Django's ModelBackend, refusing local passwords while QUOTAWEB_LOCAL_LOGIN=0.
    "quotaweb.accounts.backends.LocalPasswordBackend",
]
# Sign-in with the site's LDAP directory when QUOTAWEB_LDAP_URL is set (docs/authentication.md):
# after the local accounts, so the break-glass admin signs in while the directory is down.
QUOTAWEB_LDAP = ldap_settings(
    os.environ, admin_groups=QUOTAWEB_ADMIN_GROUPS, viewer_groups=QUOTAWEB_VIEWER_GROUPS,
)
if QUOTAWEB_LDAP:
    globals().update(auth_ldap_settings(QUOTAWEB_LDAP))
    AUTHENTICATION_BACKENDS.append("quotaweb.accounts.ldap_backend.QuotawebLDAPBackend")

AXES_FAILURE_LIMIT = QUOTAWEB_LOGIN_FAILURES
AXES_COOLOFF_TIME = timedelta(seconds=QUOTAWEB_LOGIN_COOLOFF_SECONDS)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
# A sign-in that succeeds clears that account's and that address's failures.
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "quotaweb.accounts.views.locked_out"
# Failures only: a row for every successful sign-in is not needed to count them.
AXES_DISABLE_ACCESS_LOG = True

# OpenID Connect sign-in (docs/authentication.md): on when QUOTAWEB_OIDC_ISSUER is set; then the
# client's id and secret must be set too. Groups come from one claim; the provider document and
# its keys are fetched with a bounded wait, so a provider that is away costs a sign-in through it
# at most that long and never a local sign-in.
QUOTAWEB_OIDC_ISSUER = env_str("QUOTAWEB_OIDC_ISSUER", None)
if QUOTAWEB_OIDC_ISSUER is not None and not QUOTAWEB_OIDC_ISSUER.startswith(
    ("https://", "http://")
):
    raise ImproperlyConfigured(
        f"QUOTAWEB_OIDC_ISSUER={QUOTAWEB_OIDC_ISSUER!r} is not an http(s) URL; give the issuer "
        "exactly as the provider's discovery document names it (https://sso.example.org/realms/hpc)."
    )
_oidc_required = QUOTAWEB_OIDC_ISSUER is not None
QUOTAWEB_OIDC_CLIENT_ID = env_str("QUOTAWEB_OIDC_CLIENT_ID", None)
QUOTAWEB_OIDC_CLIENT_SECRET = env_str("QUOTAWEB_OIDC_CLIENT_SECRET", None)
for _name, _value in (
    ("QUOTAWEB_OIDC_CLIENT_ID", QUOTAWEB_OIDC_CLIENT_ID),
    ("QUOTAWEB_OIDC_CLIENT_SECRET", QUOTAWEB_OIDC_CLIENT_SECRET),
):
    if _oidc_required and _value is None:
        raise ImproperlyConfigured(f"QUOTAWEB_OIDC_ISSUER is set, so {_name} must be set too.")
    if not _oidc_required and _value is not None:
        raise ImproperlyConfigured(f"{_name} is set but QUOTAWEB_OIDC_ISSUER is not.")
QUOTAWEB_OIDC_NAME = env_str("QUOTAWEB_OIDC_NAME", "single sign-on")
QUOTAWEB_OIDC_GROUPS_CLAIM = env_str("QUOTAWEB_OIDC_GROUPS_CLAIM", "groups")
QUOTAWEB_OIDC_USERNAME_CLAIM = env_str("QUOTAWEB_OIDC_USERNAME_CLAIM", "preferred_username")
QUOTAWEB_OIDC_SCOPES = env_str("QUOTAWEB_OIDC_SCOPES", "openid email profile groups").split()
if "openid" not in QUOTAWEB_OIDC_SCOPES:
    raise ImproperlyConfigured(
        f"QUOTAWEB_OIDC_SCOPES={' '.join(QUOTAWEB_OIDC_SCOPES)!r} lacks openid: without it the "
        "provider sends no ID token."
    )
QUOTAWEB_OIDC_TIMEOUT_SECONDS = env_int("QUOTAWEB_OIDC_TIMEOUT_SECONDS", 5, minimum=1, maximum=60)
# How far the provider's clock may be off when the ID token's expiry is checked.
QUOTAWEB_OIDC_CLOCK_SKEW_SECONDS = env_int(
    "QUOTAWEB_OIDC_CLOCK_SKEW_SECONDS", 30, minimum=0, maximum=300
)
# A session signed in through the provider lasts this long; the groups, and so the role, are read
# again at the next sign-in.
QUOTAWEB_OIDC_SESSION_SECONDS = env_int(
    "QUOTAWEB_OIDC_SESSION_SECONDS", 8 * 3600, minimum=60, maximum=30 * 86400
)
if QUOTAWEB_OIDC_ISSUER is not None:
    # Logging out (the form in every page's header) ends in a redirect to the provider's logout
    # page, and browsers hold a form's redirects to form-action too.
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["form-action"].append(
        "{0.scheme}://{0.netloc}".format(urlsplit(QUOTAWEB_OIDC_ISSUER))
    )
# Password sign-in for local accounts. Off (0): the login page offers only the directory, and the
# local accounts named in QUOTAWEB_BREAK_GLASS_USERS alone may still use their password, through
# /accounts/login/?break-glass=1 (docs/authentication.md, "Break-glass").
QUOTAWEB_LOCAL_LOGIN = env_bool("QUOTAWEB_LOCAL_LOGIN", True)
QUOTAWEB_BREAK_GLASS_USERS = env_list("QUOTAWEB_BREAK_GLASS_USERS", [])
if not QUOTAWEB_LOCAL_LOGIN and not (
    QUOTAWEB_OIDC_ISSUER or QUOTAWEB_LDAP or QUOTAWEB_BREAK_GLASS_USERS
):
    raise ImproperlyConfigured(
        "QUOTAWEB_LOCAL_LOGIN=0 leaves nobody a way to sign in: set QUOTAWEB_OIDC_ISSUER or "
        "QUOTAWEB_LDAP_URL, or name a break-glass account in QUOTAWEB_BREAK_GLASS_USERS."
    )

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("QUOTAWEB_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns about a missing folder
# Serve straight from static/ through the finders: no collectstatic step for the embedded app.
WHITENOISE_USE_FINDERS = True
# Files browsers ask for at the site's root, such as /favicon.ico.
WHITENOISE_ROOT = BASE_DIR / "static" / "root"

# The API (DRF). Tokens first, so a caller without credentials gets 401 with a Token challenge.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "quotaweb.api.authentication.CachedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["quotaweb.api.permissions.ViewerReadsAdminWrites"],
    "DEFAULT_PARSER_CLASSES": ["quotaweb.api.parsers.CappedJsonParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "quotaweb.api.errors.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "quotaweb API",
    "DESCRIPTION": "Quotas per user and group over a queue hierarchy: YuniKorn-compatible reads, "
    "versioned configuration writes, and the allocation API schedulers report usage through.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # 3.1: full JSON Schema, so a resource map can say its keys are non-empty (propertyNames).
    "OAS_VERSION": "3.1.0",
    # Every error each operation can answer (401, 403, 404, 400, 413, 415, 409, 412, 503), in
    # the error shape of its path, unless the view documents it itself.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "quotaweb.api.schema_hooks.add_error_responses",
        "quotaweb.api.schema_hooks.nullable_as_type_lists",
    ],
}
# The YuniKorn-compatible /ws/v1/ reads without logging in (read-only dashboards).
QUOTAWEB_PUBLIC_READ = env_bool("QUOTAWEB_PUBLIC_READ", False)
# What the packager knows of this build, shown as YuniKorn's build information (/ws/v1/clusters).
QUOTAWEB_BUILD_DATE = env_str("QUOTAWEB_BUILD_DATE", "")
QUOTAWEB_BUILD_COMMIT = env_str("QUOTAWEB_BUILD_COMMIT", "")
# A whole configuration may be 8 MiB of YAML (trackers' own cap) and a batch 10,000 operations.
DATA_UPLOAD_MAX_MEMORY_SIZE = 16 * 1024 * 1024

# Usage trends: how often the server samples usage, and for how many days samples are kept.
QUOTAWEB_TREND_SAMPLE_SECONDS = env_int("QUOTAWEB_TREND_SAMPLE_SECONDS", 60, minimum=1)
QUOTAWEB_TREND_DAYS = env_int("QUOTAWEB_TREND_DAYS", 7, minimum=1)

# The history of allocations (admissions, releases, denials) and the accounting built on it: how
# many days it is kept, how often the engine owner folds it into the accounting's rollups and
# prunes it, and how many denials may wait for their background write (more are dropped and
# counted). See quotaweb/usage/rollups.py and quotaweb/allocations/history.py.
QUOTAWEB_HISTORY_DAYS = env_int("QUOTAWEB_HISTORY_DAYS", 90, minimum=1)
QUOTAWEB_HISTORY_FOLD_SECONDS = env_int("QUOTAWEB_HISTORY_FOLD_SECONDS", 10, minimum=1)
QUOTAWEB_HISTORY_DENIALS_QUEUED = env_int("QUOTAWEB_HISTORY_DENIALS_QUEUED", 10000, minimum=1)
# What-if replays (issue 30) each process runs at once; more wait their turn (each takes a core
# while it runs).
QUOTAWEB_REPLAYS_AT_ONCE = env_int("QUOTAWEB_REPLAYS_AT_ONCE", 1, minimum=1)

# How often the engine owner checks whether the ledger needs VACUUM and ANALYZE (PostgreSQL; 0:
# never, left to autovacuum). See quotaweb/allocations/upkeep.py.
QUOTAWEB_LEDGER_UPKEEP_SECONDS = env_int("QUOTAWEB_LEDGER_UPKEEP_SECONDS", 10, minimum=0)

# Who builds live updates. "local": this process owns the engines and serves its sockets itself
# (one process, any channel layer). "channel": one process owns the engines (manage.py demo)
# and the sockets of every web process (manage.py web) ask it for snapshots over a named
# channel; updates reach them through Redis groups.
# Peers on PostgreSQL (docs/design.md, "The engines and their owners"): each serving process
# owns the partitions it holds a lease on. Its name in the lease table, logs, pages and the API
# (default: the address it listens on, host:port); the lease's time to live, after which a
# stalled owner's partitions are taken over (a dead one's are taken at once, through its
# session's advisory lock). A shorter lease moves partitions of a stalled peer sooner and costs
# a renewal round trip every tenth of it; a peer that could not renew within it stops admitting.
QUOTAWEB_NODE_NAME = env_str("QUOTAWEB_NODE_NAME", None)
if QUOTAWEB_NODE_NAME is not None and len(QUOTAWEB_NODE_NAME) > 255:
    raise ImproperlyConfigured("QUOTAWEB_NODE_NAME is longer than 255 characters.")
QUOTAWEB_LEASE_MS = env_int("QUOTAWEB_LEASE_MS", 2000, minimum=300, maximum=600_000)
# Where the other peers reach this one (host:port) to forward requests for the partitions it
# owns (docs/design.md, "Forwarding between peers"); default the address it listens on, which
# is wrong when it listens on 0.0.0.0 or on a port a container maps elsewhere.
QUOTAWEB_PEER_ADDRESS = env_str("QUOTAWEB_PEER_ADDRESS", None)
if QUOTAWEB_PEER_ADDRESS is not None and not re.fullmatch(
    r"(\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):[0-9]{1,5}", QUOTAWEB_PEER_ADDRESS
):
    raise ImproperlyConfigured(
        f"QUOTAWEB_PEER_ADDRESS must be host:port (an IPv6 host in brackets), not "
        f"{QUOTAWEB_PEER_ADDRESS!r}."
    )

QUOTAWEB_ENGINE_OWNER = env_str("QUOTAWEB_ENGINE_OWNER", "local", choices=("local", "channel"))
if QUOTAWEB_ENGINE_OWNER == "channel" and not REDIS_URL:
    raise ImproperlyConfigured(
        "QUOTAWEB_ENGINE_OWNER=channel needs REDIS_URL: the processes talk through Redis"
    )

# How often a live socket checks that its login, API token or team link is still valid.
QUOTAWEB_SOCKET_RECHECK_SECONDS = env_int("QUOTAWEB_SOCKET_RECHECK_SECONDS", 30, minimum=1)
# How many snapshots (subscribe, resync) one live socket may ask for at once, and how many more
# each minute (quotaweb/usage/throttle.py). The burst covers the 64 scopes a socket may hold
# (usage.consumers.MAX_SCOPES): a queue page with its first 25 users subscribes to 26 at once.
QUOTAWEB_SOCKET_SNAPSHOT_BURST = env_int("QUOTAWEB_SOCKET_SNAPSHOT_BURST", 64, minimum=1)
QUOTAWEB_SOCKET_SNAPSHOTS_PER_MINUTE = env_int(
    "QUOTAWEB_SOCKET_SNAPSHOTS_PER_MINUTE", 30, minimum=1
)

# Threads that run HTTP requests' Django code (views, middleware) under the ASGI server.
QUOTAWEB_HTTP_THREADS = env_int("QUOTAWEB_HTTP_THREADS", 4, minimum=1)

# The product.
QUOTAWEB_PRODUCT_NAME = "quotaweb"
QUOTAWEB_CONFIG = Path(
    env_str("QUOTAWEB_CONFIG", str(BASE_DIR / "quotaweb" / "samples" / "queues.yaml"))
)

LOG_LEVEL = env_str("QUOTAWEB_LOG_LEVEL", "INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


class ClientErrorsInOneLine(logging.Filter):
    """Django logs a refused request (403, 404, 400) with the exception that refused it; that
    traceback is the refusal working, not a fault, so it is dropped and the line kept."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", 500) < 500:
            record.exc_info = None
            record.exc_text = None
        return True


LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {
        "client_errors_in_one_line": {"()": ClientErrorsInOneLine},
        "redact_secrets": {"()": "quotaweb.redaction.RedactSecrets"},
    },
    # Team-link and API tokens travel in URLs: masked in whatever is written (quotaweb.redaction).
    "handlers": {
        "console": {
            "class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact_secrets"],
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Django's own default gives "django" a console handler in debug mode, and the record
        # propagates to ours too: every line came out twice.
        "django": {"handlers": []},
        # Masked in the records themselves too, for any handler added later.
        "django.request": {"filters": ["client_errors_in_one_line", "redact_secrets"]},
        # Failed sign-ins and lockouts (warnings), not a line for every login.
        "axes": {"level": "WARNING"},
    },
}

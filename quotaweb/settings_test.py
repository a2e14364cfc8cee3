"""Settings for the test suite: the real settings plus a fixed key and a fast password hasher.

pytest-django loads settings before any conftest runs, so the test key cannot come from a fixture.
DATABASE_URL and REDIS_URL are honoured exactly as in production (``.ci/run`` uses both).
"""

import os

os.environ.setdefault("QUOTAWEB_SECRET_KEY", "test-only-secret-key-not-for-production")
# The suite runs on a loaded two-core machine: bounds generous enough that a slow moment is not a
# 503 (the fault tests start servers with the production defaults).
os.environ.setdefault("QUOTAWEB_DB_STATEMENT_TIMEOUT_MS", "30000")
os.environ.setdefault("QUOTAWEB_SQLITE_BUSY_TIMEOUT_MS", "20000")

from quotaweb.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

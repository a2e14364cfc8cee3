"""Settings for the test suite: the real settings plus a fixed key and a fast password hasher.

pytest-django loads settings before any conftest runs, so the test key cannot come from a fixture.
DATABASE_URL and REDIS_URL are honoured exactly as in production (``.ci/run`` uses both).
"""

import os

os.environ.setdefault("QUOTAWEB_SECRET_KEY", "test-only-secret-key-not-for-production")

from quotaweb.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

"""DRF's token authentication, remembering each key's user for a few seconds.

A scheduler sends the same token with thousands of requests a second, and looking it up (the
ORM building a joined query each time) took half of an allocation's time on the server. A
deleted token, or a user made inactive, stops working within ``TOKEN_CACHE_SECONDS``.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from rest_framework.authentication import TokenAuthentication

TOKEN_CACHE_SECONDS = 5.0
_KEYS_KEPT = 1024

_lock = threading.Lock()
_known: dict[str, tuple[float, Any, Any]] = {}


def token_user_remembered(key: str) -> Any | None:
    """The user of ``key`` if it is remembered (no database look-up), else None."""
    found = _known.get(key)
    if found is not None and time.monotonic() - found[0] < TOKEN_CACHE_SECONDS:
        return found[1]
    return None


class CachedTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        now = time.monotonic()
        found = _known.get(key)
        if found is not None and now - found[0] < TOKEN_CACHE_SECONDS:
            return found[1], found[2]
        # Raises AuthenticationFailed for an unknown key or an inactive user: never cached.
        user, token = super().authenticate_credentials(key)
        with _lock:
            if len(_known) >= _KEYS_KEPT:
                _known.clear()
            _known[key] = (now, user, token)
        return user, token


def token_cache_clear() -> None:
    """Forget every remembered key (tests that delete tokens or deactivate users)."""
    with _lock:
        _known.clear()

"""Secrets that travel in URLs, kept out of the logs.

A team link is its token (``/team/<token>/``, no login), and a live socket may carry an API or
team-link token as ``?token=``. Both reach the access log (the request line) and Django's
request log ("Not Found: /team/<token>/"), where anyone who reads the logs could use them. Each is
written as its first few characters and ``***``: enough for support to tell which link a line is
about (the team-links page shows the same start), far too little to open it.
"""

from __future__ import annotations

import logging
import re

from daphne.access import AccessLogGenerator

SHOWN = 4
# Only tokens this long keep their start: a short one could be most of a real token, mistyped.
SHOWN_FROM = 16
MASK = "***"

# A value ends at the next separator of a path, query or log line (quotes end a logged request).
_VALUE = r"[^/?&#\s\"']+"
_SECRETS = re.compile(
    rf"(?P<lead>/team/|team%2F|[?&]token=)(?P<secret>{_VALUE})", flags=re.IGNORECASE
)


def _masked(match: re.Match[str]) -> str:
    secret = match["secret"]
    shown = secret[:SHOWN] if len(secret) >= SHOWN_FROM else ""
    return f"{match['lead']}{shown}{MASK}"


def secrets_redacted(text: str) -> str:
    """``text`` with every team-link token and ``token=`` value masked."""
    return _SECRETS.sub(_masked, text)


class RedactSecrets(logging.Filter):
    """A logging filter that masks URL secrets in the record's message (its arguments merged
    in), so every handler after it, and every record it passed, holds only the masked text."""

    def filter(self, record: logging.LogRecord) -> bool:
        # A record may pass twice (its logger's filter, then the handler's): a masked value,
        # shorter than SHOWN_FROM, would lose its start the second time.
        if getattr(record, "secrets_redacted", False):
            return True
        record.secrets_redacted = True
        message = record.getMessage()
        redacted = secrets_redacted(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


class RedactedAccessLog(AccessLogGenerator):
    """daphne's access log (one NCSA line per request or socket event) with URL secrets
    masked in the request line."""

    def write_entry(self, host, date, request, *args, **kwargs) -> None:
        super().write_entry(host, date, secrets_redacted(request), *args, **kwargs)

"""Exceptions raised by the trackers library."""

from __future__ import annotations


class TrackersError(ValueError):
    """Base of every error the library raises on bad input."""


class QuantityError(TrackersError):
    """A quantity string that cannot be read; ``str(err)`` is one of the texts of spec 1.3."""


class ConfigError(TrackersError):
    """A configuration document that does not validate.

    ``errors`` holds every problem found, each a dict ``{code, path, field, message}``.
    """

    def __init__(self, errors: list[dict[str, str]]) -> None:
        self.errors = errors
        first = errors[0]["message"] if errors else "invalid configuration"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(first + more)


class InvalidRequest(TrackersError):
    """An engine call with a missing or malformed argument; nothing was changed."""


class NotTracked(TrackersError):
    """A decrease for a user, application or queue path the engine does not track."""

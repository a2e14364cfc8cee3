"""Go's ``time.Duration`` text, both ways: ``go_duration_parse`` reads what Go's
``time.ParseDuration`` reads (YuniKorn reads a queue's ``preemption.delay`` so), and
``go_duration_text`` writes what ``Duration.String`` writes (YuniKorn's ``preemptionDelay``:
``30s``, ``1m0s``, ``1h0m0s``, ``1.5ms``).

Written to Go's rules rather than with a regular expression, so that the edge cases agree: a
sign, "0" alone without a unit, ``.5s`` and ``1.s`` but not ``.s``, several parts (``1h30m``),
the three spellings of microseconds, and a value past int64's nanoseconds refused."""

from __future__ import annotations

_INT64_MAX = 2**63 - 1
_UNITS = {
    "ns": 1, "us": 10**3, "\u00b5s": 10**3, "\u03bcs": 10**3, "ms": 10**6, "s": 10**9,
    "m": 60 * 10**9, "h": 3600 * 10**9,
}
_DIGITS = "0123456789"


class DurationInvalid(ValueError):
    """Text Go's ``time.ParseDuration`` refuses."""


def _leading_int(text: str) -> tuple[int, str, int]:
    """The integer at the start of ``text``, the rest, and how many digits it had; Go's
    overflow check (past int64) refuses."""
    value, index = 0, 0
    while index < len(text) and text[index] in _DIGITS:
        value = value * 10 + int(text[index])
        if value > 2**63:
            raise DurationInvalid("overflow")
        index += 1
    return value, text[index:], index


def _leading_fraction(text: str) -> tuple[int, float, str, int]:
    """The digits after a point: their value, its scale, the rest, how many digits. Digits past
    what int64 holds are read and ignored, as Go does."""
    value, scale, index, overflow = 0, 1.0, 0, False
    while index < len(text) and text[index] in _DIGITS:
        if not overflow:
            following = value * 10 + int(text[index])
            if value > _INT64_MAX // 10 or following > 2**63:
                overflow = True
            else:
                value, scale = following, scale * 10
        index += 1
    return value, scale, text[index:], index


def go_duration_parse(text: str) -> int:
    """Nanoseconds of ``text`` as Go's ``time.ParseDuration`` reads it; ``DurationInvalid``
    where Go returns an error."""
    rest, negative = text, False
    if rest[:1] in ("-", "+"):
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise DurationInvalid(f"invalid duration {text!r}")
    total = 0
    while rest:
        if rest[0] != "." and rest[0] not in _DIGITS:
            raise DurationInvalid(f"invalid duration {text!r}")
        whole, rest, before = _leading_int(rest)
        fraction, scale, after = 0, 1.0, 0
        if rest[:1] == ".":
            fraction, scale, rest, after = _leading_fraction(rest[1:])
        if not before and not after:
            raise DurationInvalid(f"invalid duration {text!r}")
        end = 0
        while end < len(rest) and rest[end] != "." and rest[end] not in _DIGITS:
            end += 1
        unit = _UNITS.get(rest[:end])
        if unit is None:
            raise DurationInvalid(f"unknown or missing unit in duration {text!r}")
        rest = rest[end:]
        if whole > 2**63 // unit:
            raise DurationInvalid(f"invalid duration {text!r}")
        whole *= unit
        if fraction:
            whole += int(float(fraction) * (float(unit) / scale))
            if whole > 2**63:
                raise DurationInvalid(f"invalid duration {text!r}")
        total += whole
        if total > 2**63:
            raise DurationInvalid(f"invalid duration {text!r}")
    if negative:
        return -total
    if total > _INT64_MAX:
        raise DurationInvalid(f"invalid duration {text!r}")
    return total


def _with_fraction(whole: int, fraction: int, digits: int) -> str:
    """``whole`` and ``fraction`` (of ``digits`` digits) with the fraction's trailing zeros
    left out, and its point too when nothing is left of it."""
    text = f"{fraction:0{digits}d}".rstrip("0")
    return f"{whole}.{text}" if text else str(whole)


def go_duration_text(nanoseconds: int) -> str:
    """``nanoseconds`` as Go's ``Duration.String`` writes it."""
    if nanoseconds == 0:
        return "0s"
    sign, amount = ("-" if nanoseconds < 0 else ""), abs(nanoseconds)
    if amount < 10**3:
        return f"{sign}{amount}ns"
    if amount < 10**6:
        return sign + _with_fraction(*divmod(amount, 10**3), 3) + "\u00b5s"
    if amount < 10**9:
        return sign + _with_fraction(*divmod(amount, 10**6), 6) + "ms"
    seconds, fraction = divmod(amount, 10**9)
    text = _with_fraction(seconds % 60, fraction, 9) + "s"
    minutes = seconds // 60
    if minutes:
        text = f"{minutes % 60}m{text}"
        if minutes // 60:
            text = f"{minutes // 60}h{text}"
    return sign + text

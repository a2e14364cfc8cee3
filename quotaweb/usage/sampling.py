"""How the sampled pages (the over-limit list, trends, the users' sparklines) read the samples:
when the last one was, where they are far enough apart to leave a gap, and times as the pages
write them.

``quotaweb.usage.services.usage_sample`` writes the samples every
``QUOTAWEB_TREND_SAMPLE_SECONDS``. A sample is written only for what uses something, so samples
further apart than ``GAP_INTERVALS`` sampling intervals mean nothing was in use in between (or
nothing was sampling): charts leave a gap there rather than draw a line across it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from quotaweb.usage.models import UsageSample

GAP_INTERVALS = 2.5
# Fewer spacings than this say nothing about the usual one (two samples hours apart are a gap).
GAP_EVIDENCE = 10
# A last sample older than this many intervals is worth a word: sampling may have stopped.
STALE_INTERVALS = 3


def sample_seconds() -> int:
    """How often usage is sampled (``QUOTAWEB_TREND_SAMPLE_SECONDS``)."""
    return settings.QUOTAWEB_TREND_SAMPLE_SECONDS


def last_sample_at() -> datetime | None:
    """When usage was last sampled, None before the first sample. A pass writes every
    partition's samples (and refreshes the over-limit list) at one time; a pass that found
    nothing in use anywhere writes nothing, so this is the last sample with usage."""
    return UsageSample.objects.aggregate(last=Max("at"))["last"]


def sampling_state(now: datetime) -> dict[str, Any]:
    """When the last sample was, how often they are taken, and whether sampling looks stopped."""
    last, every = last_sample_at(), sample_seconds()
    return {
        "last_sample": last, "every": every, "kept_days": settings.QUOTAWEB_TREND_DAYS,
        "last_sample_age": duration_text(now - last) if last else "",
        "stale": last is not None and now - last > timedelta(seconds=STALE_INTERVALS * every),
    }


def gap_seconds(times: Sequence[float], every: int) -> float:
    """Seconds between samples (at ``times``, oldest first) beyond which they are drawn apart:
    ``GAP_INTERVALS`` of the sampling interval ``every``, or of the samples' usual spacing when
    it is longer (samples kept from before the interval was changed)."""
    return GAP_INTERVALS * max(every, _usual_spacing(times))


def _usual_spacing(times: Sequence[float]) -> float:
    """The median spacing of ``times`` (seconds), 0 when there are too few to tell."""
    if len(times) <= GAP_EVIDENCE:
        return 0
    return sorted(later - earlier for earlier, later in pairwise(times))[(len(times) - 1) // 2]


def duration_text(delta: timedelta) -> str:
    """``2 h 5 min``, ``3 d 4 h``, ``under a minute``."""
    minutes = max(0, int(delta.total_seconds())) // 60
    if not minutes:
        return "under a minute"
    days, minutes = divmod(minutes, 1440)
    hours, minutes = divmod(minutes, 60)
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{minutes} min"


def clock_text(at: datetime, *, with_day: bool = False) -> str:
    """``14:05``, or ``Tue 03 Jun 14:05`` with the day, in local time."""
    return timezone.localtime(at).strftime("%a %d %b %H:%M" if with_day else "%H:%M")

"""Pausing the cyclic garbage collector around bulk building.

Loading a big config or snapshotting every user creates hundreds of thousands of containers that
all stay alive until the work is done. Each of them counts towards the collector's thresholds, so
it runs full collections over the whole engine state again and again for nothing: about two thirds
of the time of a 10,000-user snapshot. Reference counting still frees everything as usual.

Pauses are counted across threads: the collector comes back on when the last one ends, not when
the first does (a batch ending halfway through a configuration apply would otherwise let the
collector loose on everything the apply had built so far).

``long_lived_build`` is a pause for work whose results live long: a configuration apply, whose
model and compiled limits serve every request until the next one. In a process that keeps its
long-lived objects frozen out of the collector's sight (``freeze_survivors``, set by the server),
what survives the build is frozen when the pause ends, before the collector can run again: no
collection ever walks the new configuration, neither a young one over everything the pause
made (about a million objects at 10,000 queues, held by the interpreter for 100 ms or more) nor
the full ones that would otherwise walk it again and again (250-340 ms each, docs/design.md,
"Applies beside allocations"). Frozen objects are still freed by reference counting when they
are dropped (the configuration model and its compiled limits make no cycles), so an old
configuration goes as soon as nothing holds it. What a freeze does keep for good is cyclic
garbage: the build starts with a full collection, over what was made since the last freeze
only, so that little more than the build's own cyclic garbage is ever frozen.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
# Whether the collector was on when the pauses under way began (someone else's disable stands).
_resume = False
# A long-lived build ended within the pauses under way: freeze before the collector resumes.
_freeze_due = False
_freezing = False


def freeze_survivors(enabled: bool = True) -> None:
    """Whether ``long_lived_build`` freezes what survives it: only in a process that froze its
    start-up state and keeps long-lived objects frozen (``manage.py serve``); never in tests,
    whose many applies would freeze one another's garbage."""
    global _freezing
    _freezing = enabled


def _pause() -> None:
    global _pauses, _resume
    with _lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1


def _unpause(*, long_lived: bool = False) -> None:
    global _pauses, _freeze_due
    with _lock:
        _pauses -= 1
        _freeze_due = _freeze_due or (long_lived and _freezing)
        if _pauses == 0:
            if _freeze_due:
                gc.freeze()
                _freeze_due = False
            if _resume:
                gc.enable()


@contextmanager
def paused_gc() -> Iterator[None]:
    _pause()
    try:
        yield
    finally:
        _unpause()


@contextmanager
def long_lived_build() -> Iterator[None]:
    """``paused_gc`` for building objects meant to outlive the caller (a configuration apply):
    with ``freeze_survivors``, what survives the build is frozen once the collector would run
    again (module docstring)."""
    if _freezing:
        # Young and old garbage collected now is not frozen with the build's survivors. With
        # every apply frozen, this pass walks only what requests made since the last one.
        gc.collect()
    _pause()
    try:
        yield
    finally:
        _unpause(long_lived=True)

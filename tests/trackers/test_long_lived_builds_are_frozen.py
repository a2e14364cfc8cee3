"""``trackers.gcpause``: pauses counted across callers (the collector resumes when the last one
ends), and a long-lived build's survivors frozen out of the collector's sight in a process that
asks for it (the server), never otherwise."""

from __future__ import annotations

import gc

import pytest

from trackers import gcpause


@pytest.fixture
def collecting():
    gc.enable()
    yield
    gcpause.freeze_survivors(False)
    gc.unfreeze()
    gc.enable()


def _tracked(obj: object) -> bool:
    return any(found is obj for found in gc.get_objects())


def test_the_collector_resumes_when_the_last_pause_ends_not_the_first(collecting):
    first, second = gcpause.paused_gc(), gcpause.long_lived_build()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_collector_switched_off_elsewhere_stays_off(collecting):
    gc.disable()
    with gcpause.paused_gc():
        pass
    assert not gc.isenabled()


def test_what_a_long_lived_build_keeps_is_frozen_when_the_server_asks(collecting):
    gcpause.freeze_survivors()
    with gcpause.long_lived_build():
        kept = {"config": [object()]}
        assert _tracked(kept)
    # Frozen: out of every generation the collector walks.
    assert gc.get_freeze_count() > 0
    assert not _tracked(kept)
    assert gc.isenabled()


def test_without_the_servers_request_nothing_is_frozen(collecting):
    with gcpause.long_lived_build():
        kept = {"config": [object()]}
    assert gc.get_freeze_count() == 0
    assert _tracked(kept)


def test_a_build_ending_inside_another_pause_freezes_when_that_one_ends(collecting):
    gcpause.freeze_survivors()
    with gcpause.paused_gc():
        with gcpause.long_lived_build():
            kept = {"config": [object()]}
        assert gc.get_freeze_count() == 0
        later = {"batch": [object()]}
    assert not _tracked(kept)
    assert not _tracked(later)

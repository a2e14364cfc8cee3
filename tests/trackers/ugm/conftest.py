"""The user/group quota engine tests' fixture; their helpers are in ``support.py``."""

from __future__ import annotations

import pytest

from tests.trackers.ugm.support import make_engine


@pytest.fixture
def engine_for():
    """``engine_for(yaml_text)`` or ``engine_for(limits=..., queues=..., tree=...)`` -> Engine."""
    return make_engine

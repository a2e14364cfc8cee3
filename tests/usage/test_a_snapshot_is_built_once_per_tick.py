"""However many sockets ask for a scope's snapshot between two ticks of the broadcaster (a crowd
subscribing, a viewer resyncing in a loop), it is built once; the next tick builds afresh."""

from __future__ import annotations

import pytest

from quotaweb.usage import selectors
from quotaweb.usage.broadcaster import broadcaster_get
from quotaweb.usage.scopes import scope_parse

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_scopes_snapshot_is_built_once_per_tick(capped_engines, monkeypatch):
    built = []
    real = selectors.scope_snapshot

    def counted(**kwargs):
        built.append(kwargs["scope"].text)
        return real(**kwargs)

    monkeypatch.setattr(selectors, "scope_snapshot", counted)
    broadcaster = broadcaster_get()
    users = scope_parse("users")
    first = await broadcaster.watch("default", users, holder="a")
    broadcaster._task.cancel()  # the test ticks by hand
    # Sockets ask by watching (a resync watches again): each answer is the one built snapshot.
    answers = [
        await broadcaster.watch("default", users, holder=holder) for holder in "abcdef"
    ]

    assert built == ["users"]
    assert all(answer is first for answer in answers)

    await broadcaster.tick()
    await broadcaster.watch("default", users, holder="a")
    assert built == ["users", "users"]

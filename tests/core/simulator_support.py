"""Readers shared by the simulator tests."""

from __future__ import annotations

from collections import Counter

from quotaweb.core.simulator import Simulator

TICK = 0.1


def run_for(simulator: Simulator, *, start: float, seconds: float) -> float:
    """Step ``simulator`` on a made-up clock every ``TICK`` for ``seconds``; the time reached."""
    steps = round(seconds / TICK)
    for index in range(1, steps + 1):
        simulator.step(start + index * TICK)
    return start + steps * TICK


def all_events(partition: str, *, after: int = 0) -> list[dict]:
    """Every event the partition still keeps after ``after``, through the feed's pages."""
    from quotaweb.allocations.selectors import events_after

    events: list[dict] = []
    while True:
        page = events_after(partition=partition, after=after)
        events += page["events"]
        if not page["events"] or page["events"][-1]["seq"] >= page["last"]:
            return events
        after = page["events"][-1]["seq"]


def kinds(events: list[dict]) -> Counter:
    return Counter(event["type"] for event in events)


def usage_left(partition: str) -> list[tuple[str, str, dict]]:
    """(owner, queue path, usage) wherever a user, group or queue still uses something or runs
    an application; empty once everything is released."""
    from quotaweb.engine.gateway import engines_get

    gateway = engines_get()
    found = []
    owners = [(u["userName"], u["queues"]) for u in gateway.users_usage(partition)]
    owners += [(g["groupName"], g["queues"]) for g in gateway.groups_usage(partition)]
    for owner, tree in owners:
        stack = [tree]
        while stack:
            node = stack.pop()
            used = {k: v for k, v in (node.get("resourceUsage") or {}).items() if v}
            if used or node.get("runningApplications"):
                found.append((owner, node["queuePath"], used))
            stack.extend(node.get("children", ()))
    stack = [gateway.queues_usage(partition)]
    while stack:
        node = stack.pop()
        used = {k: v for k, v in (node.get("allocatedResource") or {}).items() if v}
        if used or node.get("runningApps"):
            found.append(("queue", node["queuename"], used))
        stack.extend(node.get("children", ()))
    return found

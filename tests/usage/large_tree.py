"""A generated partition of about 2,000 queues for the tree page tests: one level of 1,200
queues under ``root.big`` (paged), ten departments of 80 teams (``root.d<i>.t<j>``), caps on
the departments so rows have effective limits to draw."""

from __future__ import annotations

BIG = 1200
DEPARTMENTS = 10
TEAMS = 80
QUEUES = 1 + 1 + BIG + DEPARTMENTS * (1 + TEAMS)


def large_yaml() -> str:
    lines = ["partitions:", "  - name: default", "    queues:", "      - name: root",
             "        queues:", "          - name: big", "            queues:"]
    lines += [f"              - name: team-{n:04d}" for n in range(BIG)]
    for d in range(DEPARTMENTS):
        lines += [f"          - name: d{d}", "            resources:",
                  "              max: {memory: 100Gi, vcore: 100}", "            queues:"]
        lines += [f"              - name: t{t}" for t in range(TEAMS)]
    return "\n".join(lines) + "\n"


def engines_large():
    """``large_yaml()`` stored as version 1 and the engines started from it."""
    from quotaweb.config.services import config_apply
    from quotaweb.core.services import engines_start

    config_apply(yaml_text=large_yaml(), author=None, base_version=None)
    return engines_start()

"""Shared pieces of the usage page tests: their config (``PAGES_YAML`` in ``tests/configs.py``,
caps on several levels, a group wildcard and a second partition) stored and started, and a few
allocations that make every page show something."""

from __future__ import annotations

import re

from tests.configs import PAGES_YAML

GiB = 2**30

# A user name with every character that needs care in a URL.
ODD_USER = "ci/runner@corp#1:x"


def engines_pages():
    """``PAGES_YAML`` stored as version 1 and the engines started from it (with the ledger)."""
    from quotaweb.config.services import config_apply
    from quotaweb.core.services import engines_start

    config_apply(yaml_text=PAGES_YAML, author=None, base_version=None)
    return engines_start()


def allocate(key: str, *, user: str = "alice", app: str = "app-1", queue: str = "root.eng.ml",
             memory: int = GiB, groups: tuple[str, ...] = ("ml",), partition: str = "default"):
    from quotaweb.allocations import services
    from quotaweb.allocations.services import allocation_request

    return services.allocation_create(partition=partition, request=allocation_request({
        "allocationKey": key, "applicationId": app, "queuePath": queue, "user": user,
        "groups": list(groups), "resource": {"memory": memory},
    }))


def engines_busy():
    """``engines_pages()`` with usage. alice: 9 GiB in root.eng.ml counted against ml (90 % of
    her 10 GiB at root.eng), then a denied 2 GiB; bob: 2 GiB in root.ops without a group; the
    odd user: 1 GiB in root.eng.web, counted against the group wildcard."""
    gateway = engines_pages()
    assert allocate("a1", memory=9 * GiB).allowed
    assert not allocate("a2", memory=2 * GiB).allowed
    assert allocate("b1", user="bob", app="app-2", queue="root.ops", memory=2 * GiB,
                    groups=()).allowed
    assert allocate("c1", user=ODD_USER, app="app-3", queue="root.eng.web", memory=GiB,
                    groups=("web",)).allowed
    return gateway


def row(html: str, key: str) -> str:
    """The table row whose ``data-key`` is ``key``."""
    match = re.search(rf'<tr[^>]*data-key="{re.escape(key)}".*?</tr>', html, re.S)
    assert match, f"no row {key!r}"
    return match.group(0)


def keys(html: str, rows: str) -> list[str]:
    """The ``data-key`` of each row of ``<tbody data-rows="rows">``, in order."""
    body = html.split(f'data-rows="{rows}"', 1)[1].split("</tbody>", 1)[0]
    return re.findall(r'<tr[^>]*data-key="([^"]*)"', body)


def shown(html: str, marker: str) -> bool:
    """Whether the element carrying ``marker`` (an attribute) is not hidden."""
    tag = re.search(rf"<[^>]*\b{re.escape(marker)}\b[^>]*>", html)
    assert tag, f"no element with {marker}"
    return " hidden" not in tag.group(0)

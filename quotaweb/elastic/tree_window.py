"""Which queues the elastic page shows, so it stays light at any size: the rules of
``quotaweb.config.tree_paths`` (a screen of queues, ``?focus=``, ``?page=``, ``?q=``) over the
elastic view's queues, whose rows only the shown queues get built. A queue's arrow opens the
page focused on it (a link: the page reloads, scripts or not)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from quotaweb.config import tree_paths
from quotaweb.config.tree_paths import PathEntry


class ElasticTreeNotFound(LookupError):
    """``focus`` names no queue; ``str()`` says which."""


class ElasticTreePageInvalid(ValueError):
    """``page`` out of range; ``str()`` says what it accepts."""


def elastic_tree(
    *, queues: Sequence[Mapping[str, Any]], build, focus: str = "", page: str | None = None,
    query: str = "",
) -> dict[str, Any]:
    """``window``: the shown entries, each ``(built row, PathEntry)`` or a ``More``, built by
    ``build(queue)``; ``tree``: the focus, search and matches (``ElasticTreeNotFound``,
    ``ElasticTreePageInvalid``)."""
    by_path = {queue["queuePath"]: queue for queue in queues}
    children: dict[str, list[str]] = {}
    root = "root"
    for queue in queues:
        if queue["parent"] is None:
            root = queue["queuePath"]
        else:
            children.setdefault(queue["parent"], []).append(queue["queuePath"])
    try:
        window = tree_paths.path_window(children=children, known=by_path, focus=focus,
                                        page=page, query=query, root=root)
    except tree_paths.TreePathNotFound as error:
        raise ElasticTreeNotFound(str(error)) from None
    except tree_paths.TreePageInvalid as error:
        raise ElasticTreePageInvalid(str(error)) from None
    entries = [
        (build(by_path[entry.path]), entry) if isinstance(entry, PathEntry) else entry
        for entry in window.entries
    ]
    return {"window": entries, "tree": window, "search_rows": tree_paths.SEARCH_ROWS}

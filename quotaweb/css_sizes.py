"""Sizes that figures decide (a bar's width, a segment's offset, a row's depth) as classes.

The Content-Security-Policy allows no inline style (settings, ``CONTENT_SECURITY_POLICY``), so
markup cannot say ``style="width: 37%"``. Each such size is one of a fixed set of classes in
``static/css/sizes.css``, which is ``stylesheet()`` written out (a test keeps the two equal):
widths and left offsets in whole percent from 0 to 100, depths from 0 to ``DEPTH_MAX`` (a deeper
row is indented as that depth). ``static/js/live.js`` writes the same classes (its ``depthClass``
and ``percentClass``, which elastic.js and quotatree.js use too): keep the two in step.
"""

from __future__ import annotations

DEPTH_MAX = 24
WIDTH = "w"
LEFT = "left"
_PROPERTIES = {WIDTH: "width", LEFT: "left"}


def depth_class(depth: int) -> str:
    """The class that indents a row of ``depth`` (``--depth``, read by static/css/app.css)."""
    return f"depth-{max(0, min(depth, DEPTH_MAX))}"


def percent_class(prefix: str, percent: int) -> str:
    """``WIDTH`` or ``LEFT`` at ``percent`` (whole, 0-100) of the containing box."""
    return f"{prefix}-{max(0, min(percent, 100))}"


def stylesheet() -> str:
    """The text of static/css/sizes.css."""
    lines = [
        "/* Written by quotaweb/css_sizes.py (stylesheet): sizes as classes, since the",
        "   Content-Security-Policy allows no inline style. Do not edit by hand. */",
    ]
    lines += [f".depth-{depth} {{ --depth: {depth}; }}" for depth in range(DEPTH_MAX + 1)]
    for prefix, name in _PROPERTIES.items():
        lines += [f".{prefix}-{percent} {{ {name}: {percent}%; }}" for percent in range(101)]
    return "\n".join(lines) + "\n"

"""The accounting page (``/usage/{p}/accounting/``): the API's report, a stacked chart over time
drawn by the server (SVG, one colour class per row, no inline style) and a table sorted by the
column its header links ask for."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from quotaweb.usage import accounting

# The chart's plot in its own units, stretched to the page's width.
WIDTH, HEIGHT = 1000, 220
# Colour classes (app.css): one per row shown, the rest as "others".
SERIES_CLASSES = 10
SORTS = ("key", "usage", "allocations", "applications")
ERR_SORT = "sort must be one of key, usage, allocations, applications (got {value!r})"


def accounting_page(*, partition: str, params: Mapping[str, str]) -> dict[str, Any]:
    """What the page shows for ``params`` (the API's, plus ``sort`` and ``order``);
    ``AccountingInvalid`` for a bad one."""
    query = accounting.accounting_query(partition=partition, params=params)
    report = accounting.accounting_report(query=query)
    sort = params.get("sort") or "usage"
    if sort not in SORTS:
        raise accounting.AccountingInvalid("sort", ERR_SORT.format(value=sort))
    descending = params.get("order", "desc" if sort != "key" else "asc") != "asc"
    rows = [*report["rows"], *([report["others"]] if report["others"] else [])]
    rank = report["resource"]
    for number, row in enumerate(rows):
        row["colour"] = (f"series-{number % SERIES_CLASSES}" if row is not report["others"]
                         else "series-others")
        row["ranked"] = row["usage"].get(rank, 0.0)
    chart = _chart(report, rows, rank)
    table = sorted(rows, key=lambda row: _sort_key(row, sort, rank), reverse=descending)
    kept = {name: params[name] for name in _KEPT if params.get(name)}
    types = list(report["units"])
    shares = report["by"] == "queue"
    return {
        "report": report, "chart": chart, "sort": sort,
        "order": "desc" if descending else "asc",
        "columns": _columns(report, kept, types, sort, descending, shares),
        "table": [{"key": row["key"] or NO_GROUP, "colour": row["colour"],
                   "cells": _cells(row, types, shares)} for row in table],
        "csv_query": urlencode({**kept, "format": "csv"}),
        "by_choices": accounting.BYS, "step_choices": accounting.STEPS,
        "retention_start": accounting.retention_start(),
    }


_KEPT = ("by", "from", "to", "step", "top", "user", "group", "queue", "resource")
NO_GROUP = "(no group)"


def _columns(report: dict[str, Any], kept: dict[str, str], types: list[str], sort: str,
             descending: bool, shares: bool) -> list[dict[str, Any]]:
    """The table's headers: a link to sort by each sortable one (again: the other way)."""
    rank = report["resource"]
    columns = [(report["by"].capitalize(), "key", False)]
    columns += [(f"{kind} ({report['units'][kind]})", "usage" if kind == rank else "", True)
                for kind in types]
    columns += [("Allocations", "allocations", True), ("Applications", "applications", True)]
    if shares:
        columns += [("Share of guaranteed", "", True), ("Share of max", "", True)]
    out = []
    for label, key, number in columns:
        current = bool(key) and key == sort
        order = ("asc" if descending else "desc") if current else (
            "asc" if key == "key" else "desc")
        out.append({
            "label": label, "number": number,
            "href": f"?{urlencode({**kept, 'sort': key, 'order': order})}" if key else "",
            "aria_sort": ("descending" if descending else "ascending") if current else "",
        })
    return out


def _cells(row: dict[str, Any], types: list[str], shares: bool) -> list[str]:
    cells = [f"{row['usage'].get(kind, 0.0):.3f}" for kind in types]
    cells += [str(row["allocations"]), str(row["applications"])]
    if shares:
        for name in ("guaranteed_share", "max_share"):
            cells.append(", ".join(
                f"{kind} {share * 100:.1f}%" for kind, share in row.get(name, {}).items()
                if share is not None
            ) or "none set")
    return cells


def _sort_key(row: dict[str, Any], sort: str, rank: str) -> Any:
    if sort == "key":
        return row["key"]
    if sort == "usage":
        return row["ranked"]
    return row[sort]


def _chart(report: dict[str, Any], rows: list[dict[str, Any]], rank: str) -> dict[str, Any]:
    """Stacked bars, a bar per bucket, a band per row, of the ranking resource."""
    buckets = report["buckets"]
    count = len(buckets)
    totals = [sum(row["series"].get(rank, [0.0] * count)[number] for row in rows)
              for number in range(count)]
    peak = max(totals, default=0.0) or 1.0
    width = WIDTH / max(count, 1)
    bars = []
    for number, start in enumerate(buckets):
        floor = HEIGHT
        for row in rows:
            value = row["series"].get(rank, [0.0] * count)[number]
            if value <= 0:
                continue
            height = value / peak * HEIGHT
            floor -= height
            bars.append({
                "x": round(number * width + width * 0.1, 2), "y": round(floor, 2),
                "width": round(width * 0.8, 2), "height": round(height, 2),
                "colour": row["colour"],
                "title": f"{row['key']}, {_when(start)}: {value:.3f} {report['units'][rank]}",
            })
    labels = [{"x": round((number + 0.5) / max(count, 1) * 100, 2), "text": _when(start)}
              for number, start in enumerate(buckets)
              if number % max(1, count // 8) == 0]
    return {
        "bars": bars, "labels": labels, "width": WIDTH, "height": HEIGHT,
        "peak": f"{peak:.3f}" if totals and max(totals) else "0",
        "unit": report["units"].get(rank, ""), "resource": rank,
        "summary": (f"{rank} used per {report['step']}, stacked by {report['by']}, from "
                    f"{report['from']} to {report['to']}; the figures are in the table below"),
    }


def _when(iso: str) -> str:
    return datetime.fromisoformat(iso).strftime("%d %b %H:%M")

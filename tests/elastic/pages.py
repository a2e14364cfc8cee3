"""Shared pieces of the elastic page tests: the URLs and a reader of the page's rows."""

from __future__ import annotations

import html as html_lib
import re

from django.urls import reverse


def page_url(partition: str = "default") -> str:
    return reverse("elastic:page", args=[partition])


def switch_url(partition: str = "default") -> str:
    return reverse("elastic:switch", args=[partition])


def total_url(partition: str = "default") -> str:
    return reverse("elastic:total", args=[partition])


def explain_url(partition: str = "default") -> str:
    return reverse("elastic:explain", args=[partition])


_BODY = re.compile(r'<tbody class="equeue[^"]*" data-key="([^"]+)"[^>]*>(.*?)</tbody>', re.S)
_TAG = re.compile(r"<[^>]+>")


def queue_bodies(html: str) -> dict[str, str]:
    """Each queue's ``<tbody>`` markup by queue path."""
    return dict(_BODY.findall(html))


def cell_texts(row_html: str) -> list[str]:
    """The text of each cell of one ``<tr>`` (tags dropped, entities decoded)."""
    cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row_html, re.S)
    return [html_lib.unescape(_TAG.sub("", cell)).strip() for cell in cells]


def rows_of(body: str) -> list[list[str]]:
    return [cell_texts(tr) for tr in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


COLUMNS = ("kind", "runtime", "used", "min", "lent", "borrowed", "unallocated", "bar", "max",
           "weight", "request")


def figures(body: str) -> dict[str, dict[str, str]]:
    """One queue's cells by resource type and column (the queue's own cell left out)."""
    out = {}
    for cells in rows_of(body):
        named = dict(zip(COLUMNS, cells[-len(COLUMNS):], strict=True))
        out[named["kind"]] = named
    return out

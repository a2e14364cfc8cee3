"""The error list every validation step appends to."""

from __future__ import annotations


class Report:
    """Collects ``{code, path, field, message}`` dicts in the order the checks find them."""

    __slots__ = ("errors",)

    def __init__(self) -> None:
        self.errors: list[dict[str, str]] = []

    def add(self, code: str, path: str, field: str, message: str) -> None:
        self.errors.append({"code": code, "path": path, "field": field, "message": message})

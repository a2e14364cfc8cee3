"""The error list every validation step appends to."""

from __future__ import annotations


class Report:
    """Collects ``{code, path, field, message}`` dicts in the order the checks find them.

    ``detail``, when a rule gives one, repeats the problem in plain words with the values compared
    in human units: ``message`` keeps YuniKorn's exact text (often Go's ``map[...]`` or no values
    at all), which a person editing one field cannot act on.
    """

    __slots__ = ("errors",)

    def __init__(self) -> None:
        self.errors: list[dict[str, str]] = []

    def add(
        self, code: str, path: str, field: str, message: str, detail: str | None = None
    ) -> None:
        error = {"code": code, "path": path, "field": field, "message": message}
        if detail is not None:
            error["detail"] = detail
        self.errors.append(error)

"""Filling a limit entry's max resources, which the page shows as rows of type and amount."""

from __future__ import annotations


def fill_resources(form, text: str) -> None:
    """Fill the form's resource rows as ``memory: 2Gi, vcore: 4`` reads, emptying the others."""
    rows = [tuple(part.strip() for part in item.split(":")) for item in text.split(",")]
    count = form.locator("[data-resource-row]").count()
    assert len(rows) <= count, f"{len(rows)} resources for {count} rows"
    for index in range(count):
        kind, amount = rows[index] if index < len(rows) else ("", "")
        form.get_by_label(f"Resource type {index + 1}", exact=True).fill(kind)
        form.get_by_label(f"Amount {index + 1}", exact=True).fill(amount)

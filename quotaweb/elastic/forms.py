"""Forms of the elastic quota page: the switch and the cluster total.

The total is typed like the configuration's resources (``memory: 400Gi, vcore: 96``) and read
into base units here, each quantity by the configuration's own rules
(``trackers.resources.parse_quantity``), so a bad one is named with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from quotaweb.config.forms import ResourcesField
from trackers.errors import QuantityError
from trackers.resources import parse_quantity, quantity_input

ERR_QUANTITY = "{kind}: {text!r} is not a quantity ({reason})"
ERR_SWITCH = "choose on or off"

TOTAL_HELP = (
    "What the partition shares among its queues, as type: quantity, comma separated: memory "
    "with a unit (400Gi, 500G), vcore in cores or millicores (96, 500m), any other type as a "
    "count (nvidia.com/gpu: 8). Empty: nothing to share."
)

def total_text(total: Mapping[str, int]) -> str:
    return ", ".join(f"{kind}: {quantity_input(kind, total[kind])}" for kind in sorted(total))


class SwitchForm(forms.Form):
    """Elastic quota on or off (the page's buttons send ``on`` or ``off``)."""

    enabled = forms.ChoiceField(
        choices=[("on", "on"), ("off", "off")], error_messages={"invalid_choice": ERR_SWITCH,
                                                                "required": ERR_SWITCH},
    )

    def value(self) -> bool:
        return self.cleaned_data["enabled"] == "on"


class TotalForm(forms.Form):
    total = ResourcesField(label="Cluster total", help_text=TOTAL_HELP)

    def __init__(self, *args: Any, current: Mapping[str, int] | None = None, **kwargs: Any):
        if current is not None:
            kwargs.setdefault("initial", {"total": total_text(current)})
        super().__init__(*args, **kwargs)

    def clean_total(self) -> dict[str, int]:
        """The quantities in base units; every bad one is named."""
        out: dict[str, int] = {}
        errors = []
        for kind, text in self.cleaned_data["total"].items():
            try:
                out[kind] = parse_quantity(text, kind)
            except QuantityError as error:
                errors.append(ERR_QUANTITY.format(kind=kind, text=text, reason=error))
        if errors:
            raise forms.ValidationError(errors)
        return out

"""The tree page's admin forms: add a consumer (its id, its group, its priority and one amount
per resource of the tree, in human units) and release one. Amounts are read with the tree's
units (``quotaweb.quotatrees.units``); a bad one is reported on its own field and nothing is
sent to the trees."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django import forms

from quotaweb.quotatrees.units import example_of, tree_quantity_parse

ERR_ID = "give the consumer an id (letters, digits, dots, dashes or underscores)"
ERR_GROUP = "choose the leaf node the consumer belongs to"
ERR_REQUEST_EMPTY = "ask for at least one resource"
ERR_RELEASE = "choose a consumer placed on this tree"
CONSUMER_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
REQUEST_HELP = "in human units, like {example}; empty is none"


class AddConsumerForm(forms.Form):
    """``id``, ``group`` (a leaf of the tree), ``priority`` and ``request-<resource>``."""

    id = forms.RegexField(
        regex=CONSUMER_ID, label="Consumer id", max_length=128,
        error_messages={"invalid": ERR_ID, "required": ERR_ID},
    )
    group = forms.ChoiceField(
        label="Group (a leaf node)", error_messages={"invalid_choice": ERR_GROUP,
                                                     "required": ERR_GROUP},
    )
    priority = forms.IntegerField(
        label="Priority", initial=0, min_value=0, max_value=1_000_000,
        help_text="0 never pushes anyone out; higher priorities may push out lower ones",
    )

    def __init__(self, *args: Any, leaves: Iterable[str], resources: Iterable[str],
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.resources = list(resources)
        self.fields["group"].choices = [(leaf, leaf) for leaf in leaves]
        for resource in self.resources:
            self.fields[f"request-{resource}"] = forms.CharField(
                label=f"Asks for {resource}", required=False,
                help_text=REQUEST_HELP.format(example=example_of(resource)),
            )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        request: dict[str, int] = {}
        for resource in self.resources:
            name = f"request-{resource}"
            text = (cleaned.get(name) or "").strip()
            if not text:
                continue
            try:
                request[resource] = tree_quantity_parse(text, resource)
            except ValueError as error:
                self.add_error(name, str(error))
        if not self.errors and not any(request.values()):
            raise forms.ValidationError(ERR_REQUEST_EMPTY)
        cleaned["request"] = request
        return cleaned

    def body(self) -> Mapping[str, Any]:
        """The allocation body the API takes (``POST .../allocations``)."""
        data = self.cleaned_data
        return {"id": data["id"], "groupID": data["group"], "request": data["request"],
                "priority": data["priority"]}


class ReleaseConsumerForm(forms.Form):
    consumer = forms.ChoiceField(
        label="Consumer", error_messages={"invalid_choice": ERR_RELEASE, "required": ERR_RELEASE},
    )

    def __init__(self, *args: Any, consumers: Iterable[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["consumer"].choices = [(c, c) for c in consumers]

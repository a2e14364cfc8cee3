"""The "will it fit?" question on a user's page: a GET form, so the answer can be bookmarked."""

from __future__ import annotations

from typing import Any

from django import forms

from quotaweb.config.forms import NamesField, ResourcesField
from trackers.errors import QuantityError
from trackers.resources import parse_quantity

ERR_QUANTITY = "{kind}: {error} ({quantity!r})"

QUEUE_HELP = "The queue the application runs in, as a path: root.eng.ml."
APPLICATION_HELP = (
    "An application that already runs (its group and slot are already counted), or empty for a "
    "new one."
)
GROUPS_HELP = "The user's groups as the scheduler reports them, separated by commas or spaces."


class FitForm(forms.Form):
    queue = forms.CharField(
        label="Queue", max_length=4096, help_text=QUEUE_HELP,
        widget=forms.TextInput(attrs={"list": "fit-queues", "autocomplete": "off"}),
    )
    resources = ResourcesField(label="Resources", required=True)
    application = forms.CharField(
        label="Application", required=False, max_length=255, help_text=APPLICATION_HELP
    )
    groups = NamesField(
        label="Groups", required=False, help_text=GROUPS_HELP, widget=forms.TextInput()
    )

    def clean_resources(self) -> dict[str, int]:
        """Quantity strings (``10Gi``, ``500m``) to base units, as the config reads them."""
        parsed = {}
        for kind, quantity in self.cleaned_data["resources"].items():
            try:
                parsed[kind] = parse_quantity(quantity, kind)
            except QuantityError as error:
                raise forms.ValidationError(
                    ERR_QUANTITY.format(kind=kind, error=error, quantity=quantity)
                ) from None
        return parsed

    def question(self) -> dict[str, Any]:
        """The cleaned question in ``fit.user_fit_check``'s terms."""
        data = self.cleaned_data
        return {
            "queue": data["queue"].strip(), "resources": data["resources"],
            "application": data["application"].strip(), "groups": data["groups"],
        }

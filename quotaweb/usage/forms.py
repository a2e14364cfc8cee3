"""The "will it fit?" question on a user's page: a GET form, so the answer can be bookmarked."""

from __future__ import annotations

from typing import Any

from django import forms

from quotaweb.config.forms import NamesField, ResourcesField
from quotaweb.usage.queue_picker import QueuePicker
from trackers.errors import QuantityError
from trackers.resources import parse_quantity

ERR_QUANTITY = "{kind}: {error} ({quantity!r})"

QUEUE_HELP = "The queue the application runs in (root. may be left out: eng.ml is root.eng.ml)."
QUEUE_CHOOSE = "choose a queue"
QUEUE_TYPE = "Type its path; the list suggests the top levels."
ROOT = "root"
APPLICATION_HELP = (
    "An application that already runs (its group and slot are already counted), or empty for a "
    "new one."
)
GROUPS_HELP = "The user's groups as the scheduler reports them, separated by commas or spaces."


class FitForm(forms.Form):
    # A picker of the partition's queues (``offer_queues``); a bookmarked or typed path is read
    # too, so the field stays text underneath.
    queue = forms.CharField(
        label="Queue", max_length=4096, help_text=QUEUE_HELP, widget=forms.Select,
    )
    resources = ResourcesField(label="Resources", required=True)
    application = forms.CharField(
        label="Application", required=False, max_length=255, help_text=APPLICATION_HELP
    )
    groups = NamesField(
        label="Groups", required=False, help_text=GROUPS_HELP, widget=forms.TextInput()
    )
    # The text box's suggestions when the tree is too large for a list (``offer_queues``).
    suggested_queues: list[str] = []

    def offer_queues(self, picker: QueuePicker) -> None:
        """The queues the picker offers: a list to choose from when they are every queue (a path
        asked for that is not among them stays listed, so the form still shows what was asked);
        a text box suggesting them when the tree is too large to list."""
        field = self.fields["queue"]
        if not picker.complete:
            field.widget = forms.TextInput(attrs={"list": "fit-queue-paths", "autocomplete": "off"})
            field.help_text = f"{QUEUE_HELP} {QUEUE_TYPE}"
            self.suggested_queues = picker.paths
            return
        asked = self.data.get("queue", "") if self.is_bound else ""
        listed = [*picker.paths, *([asked] if asked and asked not in picker.paths else [])]
        field.widget.choices = [("", QUEUE_CHOOSE), *((path, path) for path in listed)]

    def clean_queue(self) -> str:
        """A path may leave out the root, as people say it (``research.nlp``): every queue is
        below root, so the engine is asked about ``root.research.nlp``."""
        queue = self.cleaned_data["queue"].strip()
        lowered = queue.lower()
        if queue and lowered != ROOT and not lowered.startswith(f"{ROOT}."):
            return f"{ROOT}.{queue}"
        return queue

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

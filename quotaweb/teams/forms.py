from __future__ import annotations

from django import forms

from quotaweb.accounts.models import TeamLink


class TeamLinkForm(forms.Form):
    partition = forms.ChoiceField()
    kind = forms.ChoiceField(choices=TeamLink.KINDS, label="Shows a")
    name = forms.CharField(
        max_length=255, help_text="The group or user name, as in the limits: pick one of the list.",
        # The choices come from a datalist: a name not yet known stays possible once confirmed.
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    label = forms.CharField(
        max_length=200, required=False, help_text="Who the link is for, e.g. \"ML wall screen\"."
    )
    # Shown only after the service refused without them.
    confirm_unknown = forms.BooleanField(
        required=False, label="The name is right: make the link even though nobody knows it yet"
    )
    another = forms.BooleanField(
        required=False, label="Make another link for this team (e.g. one per screen)"
    )

    def __init__(self, *args, partitions: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["partition"].choices = [(name, name) for name in partitions]

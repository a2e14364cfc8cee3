from __future__ import annotations

from django import forms


class ReplayForm(forms.Form):
    """The period and partition of a replay of the draft; the checks are the service's, so
    the page and the API refuse the same things in the same words."""

    partition = forms.ChoiceField(label="Partition")
    start = forms.CharField(
        label="From", required=False,
        help_text="a date (2026-01-31) or a date and time; default: 7 days before the end",
    )
    end = forms.CharField(
        label="To", required=False,
        help_text="default: the end of the current hour",
    )

    def __init__(self, *args: object, partitions: list[str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["partition"].choices = [(name, name) for name in partitions]

    def params(self) -> dict[str, str]:
        data = self.cleaned_data
        return {"partition": data["partition"], "from": data["start"], "to": data["end"]}

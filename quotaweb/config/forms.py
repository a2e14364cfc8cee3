"""Forms of the configuration pages.

Forms only read what was typed into the values an edit takes (``quotaweb.config.edits``); whether
those values make a valid configuration is for ``trackers`` to judge on the whole candidate, so
the browser and the API give the same verdicts. ``place_errors`` then puts each of the
validator's errors on the form field it is about.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from quotaweb.config.selectors import error_text, queue_tail
from trackers.config.loader import MAX_BYTES
from trackers.elastic.queues import PROP_ALLOW_LENT, PROP_SYSTEM, PROP_WEIGHT

ERR_RESOURCE_ITEM = (
    "write each resource as type: quantity, separated by commas (for example memory: 10G, "
    "vcore: 4); could not read {item!r}"
)
ERR_RESOURCE_TWICE = "resource type {kind!r} is given twice"
ERR_PROPERTY_LINE = "write one property per line as name: value; could not read line {line}"
ERR_PROPERTY_TWICE = (
    "{name} has a field of its own on this form ({label}); remove it here or there"
)
ERR_YAML_NONE = "paste a configuration or choose a file to upload"
ERR_YAML_BOTH = "paste a configuration or upload a file, not both"
ERR_YAML_ENCODING = "the file is not UTF-8 text"
ERR_YAML_SIZE = "the configuration is {size} bytes; the most accepted is {limit} bytes"

RESOURCES_HELP = (
    "type: quantity, comma separated. Memory in bytes with a unit: 10G (10^9), 250Gi (2^30), "
    "512M; vcore in cores or millicores: 4, 500m; any other type as a count: nvidia.com/gpu: 2."
)
NAMES_HELP = "Names separated by commas or spaces. * alone means everyone else."
ACL_HELP = (
    "users then groups, separated by one space: \"alice,bob admins\"; * is everyone; a single "
    "space is nobody; empty means not set (inherited)."
)
PROPERTIES_HELP = (
    "One per line: name: value. The elastic quota settings (elastic.shared-weight, "
    "elastic.allow-lent, elastic.system) have fields of their own."
)
WEIGHT_HELP = (
    "Elastic quota: this queue's share, per resource, of what its siblings lend when several "
    "queues want more than their min. Written like max: vcore: 4, memory: 8Gi. Empty: the "
    "weight equals the max."
)
ALLOW_LENT_HELP = (
    "Elastic quota: while it asks for less than its guaranteed resources (its min), busy "
    "siblings may use the rest until it asks again."
)
SYSTEM_HELP = (
    "Elastic quota: a system queue's usage comes off the pool before the split, and it is kept "
    "out of the fair split (its runtime is its max)."
)
ALLOW_LENT_CHOICES = [
    ("", "yes: it lends its unused min to busy siblings (the default)"),
    ("false", "no: it keeps its whole min even while it asks for less"),
]
SYSTEM_CHOICES = [
    ("", "no: it takes part in the fair split (the default)"),
    ("true", "yes: its usage comes off the pool and it stays out of the fair split"),
]
FLAG_AS_WRITTEN = "{value} (as written: not true or false; choose one of the above)"
KIND_CHOICES = [
    ("", "decided by its children (a parent when it has child queues)"),
    ("parent", "always a parent (applications cannot run here)"),
    ("leaf", "always a leaf"),
]

_SEPARATORS = re.compile(r"[,\n]")
_NAME_SEPARATORS = re.compile(r"[,\s]+")


def resources_text(values: Mapping[str, str] | None) -> str:
    return ", ".join(f"{kind}: {quantity}" for kind, quantity in (values or {}).items())


class ResourcesField(forms.CharField):
    """``memory: 10G, vcore: 4`` as ``{"memory": "10G", "vcore": "4"}`` (quantities as written;
    the validator judges them)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", RESOURCES_HELP)
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        return resources_text(value) if isinstance(value, Mapping) else value

    def to_python(self, value: Any) -> dict[str, str]:
        out: dict[str, str] = {}
        for item in _SEPARATORS.split(super().to_python(value) or ""):
            item = item.strip()
            if not item:
                continue
            kind, sep, quantity = item.partition(":") if ":" in item else item.partition("=")
            kind, quantity = kind.strip(), quantity.strip()
            if not sep or not kind or not quantity:
                raise forms.ValidationError(ERR_RESOURCE_ITEM.format(item=item))
            if kind in out:
                raise forms.ValidationError(ERR_RESOURCE_TWICE.format(kind=kind))
            out[kind] = quantity
        return out


class ResourceRows(forms.Widget):
    """Resource types and amounts as rows (a type input offering the known types, an amount),
    the entry as admins think of it, with two empty rows to add more. The rows are sent back as
    the ``type: amount`` text ``ResourcesField`` reads; a client that sends that text itself
    (a script, an older page) still can."""

    EMPTY_ROWS = 2
    types: Iterable[str] = ()

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        if name in data:
            return data.get(name)
        rows, index = [], 0
        while f"{name}-type-{index}" in data:
            kind = data.get(f"{name}-type-{index}", "").strip()
            amount = data.get(f"{name}-amount-{index}", "").strip()
            if kind or amount:
                # A half-filled row reaches the field as it is, to be refused with its words.
                rows.append(f"{kind}: {amount}")
            index += 1
        return ", ".join(rows)

    def value_omitted_from_data(self, data: Any, files: Any, name: str) -> bool:
        return name not in data and f"{name}-type-0" not in data

    def id_for_label(self, id_: str) -> str:
        return f"{id_}-type-0" if id_ else id_

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        attrs = self.build_attrs(self.attrs, attrs)
        base = attrs.get("id", name)
        described = attrs.get("aria-describedby", "")
        rows = _rows_of(value)
        rows += [("", "")] * self.EMPTY_ROWS
        listed = f"{base}-types"
        cells = format_html_join(
            "", (
                '<div class="resource-row" data-resource-row>'
                '<input type="text" name="{0}-type-{1}" id="{2}-type-{1}" value="{3}" '
                'list="{4}" autocomplete="off" aria-label="Resource type {5}"{6}>'
                '<input type="text" name="{0}-amount-{1}" id="{2}-amount-{1}" value="{7}" '
                'inputmode="text" aria-label="Amount {5}"{6}></div>'
            ),
            (
                (name, index, base, kind, listed, index + 1,
                 format_html(' aria-describedby="{}"', described) if described else "", amount)
                for index, (kind, amount) in enumerate(rows)
            ),
        )
        options = format_html_join("", '<option value="{}">', ((kind,) for kind in self.types))
        return format_html(
            '<div class="resource-rows" data-resource-rows="{}">{}<datalist id="{}">{}</datalist>'
            "</div>",
            name, cells, listed, options,
        )


def _rows_of(value: Any) -> list[tuple[str, str]]:
    """``(type, amount)`` rows of a value as the form holds it: the mapping it starts with, or
    the text sent back (read leniently, to show again what was typed)."""
    if isinstance(value, Mapping):
        return [(str(kind), str(amount)) for kind, amount in value.items()]
    rows = []
    for item in _SEPARATORS.split(value or ""):
        if item.strip():
            kind, _, amount = item.partition(":") if ":" in item else item.partition("=")
            rows.append((kind.strip(), amount.strip()))
    return rows


class ResourceRowsField(ResourcesField):
    """``ResourcesField`` entered as rows (``ResourceRows``)."""

    widget = ResourceRows

    def prepare_value(self, value: Any) -> Any:
        return value


class NamesField(forms.CharField):
    """Users or groups, comma or space separated, in the order written (the validator checks
    names, duplicates and where the wildcard stands)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", NAMES_HELP)
        kwargs.setdefault("widget", forms.TextInput(attrs={"data-tokens": ""}))
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        return ", ".join(value) if isinstance(value, list | tuple) else value

    def to_python(self, value: Any) -> list[str]:
        return [name for name in _NAME_SEPARATORS.split(super().to_python(value) or "") if name]


class PropertiesField(forms.CharField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 2}))
        kwargs.setdefault("help_text", PROPERTIES_HELP)
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, Mapping):
            return "\n".join(f"{key}: {item}" for key, item in value.items())
        return value

    def to_python(self, value: Any) -> dict[str, str]:
        out = {}
        for number, line in enumerate((super().to_python(value) or "").splitlines(), start=1):
            if not line.strip():
                continue
            key, sep, item = line.partition(":")
            if not sep or not key.strip():
                raise forms.ValidationError(ERR_PROPERTY_LINE.format(line=number))
            out[key.strip()] = item.strip()
        return out


class AclField(forms.CharField):
    """An ACL as typed (a single space means nobody); empty is "not set"."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, strip=False, help_text=ACL_HELP, **kwargs)

    def to_python(self, value: Any) -> str | None:
        return value if value else None


# The elastic quota settings: queue properties with a field each (form field -> property, the
# word that is the default and is therefore not written).
ELASTIC_FLAGS = (
    ("elastic_allow_lent", PROP_ALLOW_LENT, "true"),
    ("elastic_system", PROP_SYSTEM, "false"),
)
ELASTIC_PROPERTY_OF = {
    "elastic_weight": PROP_WEIGHT,
    **{name: prop for name, prop, _ in ELASTIC_FLAGS},
}


def weight_values(text: str) -> dict[str, str] | None:
    """A shared weight as written (``vcore=4,memory=8Gi`` or a JSON object) as ``{type:
    quantity}`` for the weight field; None when it cannot be shown there (it then stays among
    the other properties, as written)."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            raw = json.loads(stripped)
        except ValueError:
            return None
        if not isinstance(raw, dict) or not all(
            isinstance(value, str | int) and not isinstance(value, bool) for value in raw.values()
        ):
            return None
        pairs = [(str(kind).strip(), str(value).strip()) for kind, value in raw.items()]
    else:
        pairs = []
        for entry in stripped.split(","):
            if not entry.strip():
                continue
            kind, sep, value = entry.partition("=")
            pairs.append((kind.strip(), value.strip()) if sep else ("", ""))
    out = dict(pairs)
    if not pairs or len(out) != len(pairs) or any(not k or not v for k, v in pairs):
        return None
    # Shown in the field and read back, it must come out the same.
    try:
        shown = ResourcesField().to_python(resources_text(out))
    except forms.ValidationError:
        return None
    return out if shown == out else None


def weight_text(values: Mapping[str, str]) -> str:
    """The weight field's values as the property is written: ``vcore=4,memory=8Gi``."""
    return ",".join(f"{kind}={quantity}" for kind, quantity in values.items())


def _flag_choice(value: str | None, default: str) -> str:
    """A flag property as the choice its field shows: "" for the default (missing or written),
    the other word, or the value as written when it is neither."""
    if value is None:
        return ""
    word = value.strip().lower()
    if word == default:
        return ""
    return word if word in ("true", "false") else value


class QueueForm(forms.Form):
    name = forms.CharField(max_length=64, help_text="Letters, digits and - _ # @ / : only.")
    guaranteed = ResourcesField()
    max = ResourcesField()
    max_applications = forms.IntegerField(
        required=False, min_value=0, label="Max applications",
        help_text="Running applications in this queue over all users; empty or 0: no cap here.",
    )
    elastic_weight = ResourcesField(label="Elastic shared weight", help_text=WEIGHT_HELP)
    elastic_allow_lent = forms.ChoiceField(
        required=False, label="Lends its unused min", help_text=ALLOW_LENT_HELP,
    )
    elastic_system = forms.ChoiceField(
        required=False, label="System queue", help_text=SYSTEM_HELP,
    )
    properties = PropertiesField()
    submit_acl = AclField(label="Submit ACL")
    admin_acl = AclField(label="Admin ACL")
    kind = forms.ChoiceField(choices=KIND_CHOICES, required=False, label="Parent or leaf")

    def __init__(self, *args: Any, is_root: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if is_root:
            # The root is always called root and holds no resources (rule S1); keep the form to
            # what can change. It takes no part in elastic sharing: its elastic properties, if
            # any, stay among the others.
            for name in ("name", "guaranteed", "max", "kind", *ELASTIC_PROPERTY_OF):
                del self.fields[name]
            return
        for (name, _, _), choices in zip(
            ELASTIC_FLAGS, (ALLOW_LENT_CHOICES, SYSTEM_CHOICES), strict=True
        ):
            written = self.initial.get(name) or ""
            extra = [] if written in dict(choices) else [
                (written, FLAG_AS_WRITTEN.format(value=written))
            ]
            self.fields[name].choices = [*choices, *extra]

    @staticmethod
    def initial_for(queue: Any) -> dict[str, Any]:
        properties = dict(queue.properties)
        elastic: dict[str, Any] = {}
        if "." in queue.path:  # not the root
            text = properties.get(PROP_WEIGHT)
            weight = None if text is None else weight_values(text)
            if weight is not None:
                del properties[PROP_WEIGHT]
            elastic["elastic_weight"] = weight or {}
            for name, prop, default in ELASTIC_FLAGS:
                elastic[name] = _flag_choice(properties.pop(prop, None), default)
        return {
            "name": queue.name,
            "guaranteed": dict(queue.guaranteed),
            "max": dict(queue.max),
            "max_applications": queue.max_applications or None,
            "properties": properties,
            **elastic,
            "submit_acl": queue.submit_acl or "",
            "admin_acl": queue.admin_acl or "",
            "kind": {True: "parent", False: "leaf"}.get(queue.parent, ""),
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        written = data.get("properties") or {}
        for name, prop in ELASTIC_PROPERTY_OF.items():
            if name in self.fields and data.get(name) and prop in written:
                self.add_error("properties", ERR_PROPERTY_TWICE.format(
                    name=prop, label=self.fields[name].label
                ))
        return data

    def _properties(self) -> dict[str, str]:
        """The other properties with the elastic fields written in (defaults are not)."""
        data = self.cleaned_data
        out = dict(data["properties"])
        if data.get("elastic_weight"):
            out[PROP_WEIGHT] = weight_text(data["elastic_weight"])
        for name, prop, _ in ELASTIC_FLAGS:
            if data.get(name):
                out[prop] = data[name]
        return out

    def values(self, *, only_changed: bool = False) -> dict[str, Any]:
        """The cleaned data in the field names edits take (``is_parent``, ``max`` ...). The
        elastic fields go into ``properties``, which an edit replaces as a whole."""
        data = self.cleaned_data
        changed = set(self.changed_data)
        out: dict[str, Any] = {}
        for name in self.fields:
            if name in ELASTIC_PROPERTY_OF:
                continue
            if name == "properties":
                if not only_changed or changed & {"properties", *ELASTIC_PROPERTY_OF}:
                    out[name] = self._properties()
                continue
            if only_changed and name not in changed:
                continue
            if name == "kind":
                out["is_parent"] = {"parent": True, "leaf": False}.get(data["kind"])
            elif name == "max_applications":
                out[name] = data[name] or 0
            else:
                out[name] = data[name]
        return out


class LimitForm(forms.Form):
    description = forms.CharField(
        required=False, max_length=200, help_text="What the entry is for (optional)."
    )
    users = NamesField()
    groups = NamesField()
    max_resources = ResourceRowsField(
        label="Max resources",
        help_text=(
            "One resource per row. Memory in bytes with a unit: 10G (10^9), 250Gi (2^30); vcore "
            "in cores or millicores: 4, 500m; any other type as a count: nvidia.com/gpu 2."
        ),
    )
    max_applications = forms.IntegerField(
        required=False, min_value=0, label="Max applications",
        help_text="Running applications per user (or per group); empty or 0: no cap.",
    )

    @staticmethod
    def initial_for(limit: Any) -> dict[str, Any]:
        return {
            "description": limit.description or "",
            "users": list(limit.users),
            "groups": list(limit.groups),
            "max_resources": dict(limit.max_resources),
            "max_applications": limit.max_applications or None,
        }

    def values(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "description": data["description"] or None,
            "users": data["users"],
            "groups": data["groups"],
            "max_resources": data["max_resources"],
            "max_applications": data["max_applications"] or 0,
        }


class NewLimitForm(LimitForm):
    """A new entry and where it goes: entries are checked in order and a wildcard entry must
    come after the named ones, so by default a new entry goes before the first wildcard."""

    position = forms.TypedChoiceField(
        coerce=int, label="Position",
        help_text="Entries are checked in order; wildcard entries must come last.",
    )

    def __init__(self, *args: Any, limits: Iterable[Any] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        limits = list(limits)
        first_wildcard = next(
            (i for i, limit in enumerate(limits) if "*" in limit.users or "*" in limit.groups),
            len(limits),
        )
        choices = [
            (index, f"{index + 1}: before “{limit.description or f'entry {index + 1}'}”")
            for index, limit in enumerate(limits)
        ]
        choices.append((len(limits), f"{len(limits) + 1}: last"))
        self.fields["position"].choices = choices
        self.fields["position"].initial = first_wildcard


class ApplyForm(forms.Form):
    comment = forms.CharField(
        required=False, max_length=1000, widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why: shown in the version history next to your name.",
    )
    base_version = forms.IntegerField(required=False, widget=forms.HiddenInput)


class YamlForm(ApplyForm):
    text = forms.CharField(
        required=False, strip=False, label="Paste YAML",
        widget=forms.Textarea(
            attrs={"rows": 18, "spellcheck": "false", "class": "code", "wrap": "off"}
        ),
    )
    upload = forms.FileField(required=False, label="or upload a file")

    field_order = ["text", "upload", "comment"]

    def __init__(self, *args: Any, current_text: str = "", **kwargs: Any) -> None:
        """``current_text``: the active document, which the paste box starts with (to edit it
        in place); left as it is, it does not count as pasted next to an upload."""
        super().__init__(*args, **kwargs)
        self.current_text = current_text
        if not self.is_bound and "text" not in self.initial:
            self.initial["text"] = current_text

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        text, upload = data.get("text") or "", data.get("upload")
        # Browsers send a textarea's lines ending in CRLF whatever the document had.
        pasted = text.strip() and text.replace("\r\n", "\n").strip() != self.current_text.strip()
        if upload is not None and pasted:
            raise forms.ValidationError(ERR_YAML_BOTH)
        if upload is not None:
            if upload.size > MAX_BYTES:
                raise forms.ValidationError(ERR_YAML_SIZE.format(size=upload.size, limit=MAX_BYTES))
            try:
                text = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError(ERR_YAML_ENCODING) from None
        if not text.strip():
            raise forms.ValidationError(ERR_YAML_NONE)
        data["yaml_text"] = text
        return data


class ElasticQuotaForm(YamlForm):
    """Koordinator ElasticQuota objects to import into a partition (``kubectl get elasticquota
    -A -o yaml``); staged in the admin's draft, so no comment or base version here."""

    partition = forms.CharField(
        max_length=64, initial="default",
        help_text="The partition whose queues below root the quota groups replace (a new "
        "partition is added).",
    )
    comment = None
    base_version = None
    field_order = ["partition", "text", "upload"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["text"].label = "Paste ElasticQuota objects"


# -- the validator's errors, on the fields they are about ---------------------------------------

QUEUE_FIELD_OF = (
    ("resources.guaranteed", "guaranteed"),
    ("resources.max", "max"),
    ("maxapplications", "max_applications"),
    *((f"properties.{prop}", name) for name, prop in ELASTIC_PROPERTY_OF.items()),
    ("properties", "properties"),
    ("adminacl", "admin_acl"),
    ("submitacl", "submit_acl"),
    ("parent", "kind"),
    ("name", "name"),
)
LIMIT_FIELD_OF = (
    ("limit", "description"),
    ("users", "users"),
    ("groups", "groups"),
    ("maxresources", "max_resources"),
    ("maxapplications", "max_applications"),
)
_LIMIT_TAIL = re.compile(r"^limits\[(\d+)\]\.?(.*)$")
# Rules whose key path is not the field an admin changes to fix them. R1 is reported at
# guaranteed but lowering guaranteed or raising max both fix it, so it shows on both; H1-H4 are
# reported at the user or group name but are fixed by the entry's max resources or max
# applications (removing the name would drop the cap, not fix it).
QUEUE_RULE_TAILS = {"R1": ("resources.guaranteed", "resources.max")}
LIMIT_RULE_TAILS = {
    "H1": ("maxresources",), "H2": ("maxresources",),
    "H3": ("maxapplications",), "H4": ("maxapplications",),
}


def _field_for(tail: str, table: tuple[tuple[str, str], ...], form: forms.Form) -> str | None:
    for prefix, name in table:
        below = tail.startswith((prefix + ".", prefix + "["))
        if (tail == prefix or below) and name in form.fields:
            return name
    return None


def place_errors(
    errors: Iterable[Mapping[str, str]],
    *,
    queue_path: str,
    queue_form: forms.Form | None = None,
    limit_form: forms.Form | None = None,
    limit_index: int | None = None,
) -> list[dict[str, str]]:
    """Add each error about ``queue_path`` to the field of the form it belongs to (a queue form
    for the queue's own keys, a limit form for entry ``limit_index``); an error about the queue
    that fits no field goes to the form's non-field errors. The rest (errors about other queues
    or entries) are returned, each with its ``text``, for the page to list with where they are."""
    return [
        {**error, "text": error_text(error)}
        for error in errors
        if not _place(
            error, queue_path=queue_path, queue_form=queue_form, limit_form=limit_form,
            limit_index=limit_index,
        )
    ]


def place_draft_errors(
    errors: Iterable[Mapping[str, str]],
    *,
    queue_path: str,
    queue_form: forms.Form,
    limit_forms: Mapping[int, forms.Form],
) -> list[dict[str, str]]:
    """``place_errors`` for the problems a staged draft has now, on the queue page's forms as
    they are first shown: the queue form and every limit entry's. The rest is returned."""
    for form in (queue_form, *limit_forms.values()):
        if not form.is_bound:
            # Django keeps errors of an unbound form only after a clean that found no data.
            form.full_clean()
            form.cleaned_data = {}
    rest = place_errors(errors, queue_path=queue_path, queue_form=queue_form)
    for index, form in limit_forms.items():
        rest = place_errors(rest, queue_path=queue_path, limit_form=form, limit_index=index)
    return rest


def _place(
    error: Mapping[str, str], *, queue_path: str, queue_form: forms.Form | None,
    limit_form: forms.Form | None, limit_index: int | None,
) -> bool:
    path, text = error.get("path"), error_text(error)
    if path == queue_path:
        tail = queue_tail(error.get("field", ""))
        match = _LIMIT_TAIL.match(tail)
        if match is not None:
            if limit_form is None or int(match.group(1)) != limit_index:
                return False
            for limit_tail in LIMIT_RULE_TAILS.get(error["code"], (match.group(2),)):
                limit_form.add_error(_field_for(limit_tail, LIMIT_FIELD_OF, limit_form), text)
            return True
        if queue_form is None:
            return False
        for key in QUEUE_RULE_TAILS.get(error["code"], (tail,)):
            queue_form.add_error(_field_for(key, QUEUE_FIELD_OF, queue_form), text)
        return True
    # A bad or duplicate queue name is reported at its parent (rules Q2, Q3).
    if (
        queue_form is not None and "name" in queue_form.fields and error["code"] in ("Q2", "Q3")
        and path == queue_path.rpartition(".")[0]
    ):
        queue_form.add_error("name", text)
        return True
    return False

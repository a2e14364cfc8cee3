"""Forms of the quota tree pages: the tree editor (node rows, resource columns, JSON import), the
forest form and the mode switch.

The editor is a table: a column per resource, a row per node (name, parent, hard, one quota per
resource, remove). Its inputs are numbered (``node-3-quota-1``: row 3, resource column 1), so
rows and columns added in the browser (``static/js/quotatree-editor.js``) or by the page's own
"add" buttons without script need no count. It builds the ``QuotaTree`` document from what was
typed, unchanged: a quota is passed on as written, so ``1000m`` is refused by the document rules
(``trackers.quotatree.check_tree``) and reported on its cell, like every other problem, on the
row and field it is about (an error's ``path`` names the node, its ``field`` the JSON path).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.http import QueryDict

from quotaweb.quotatrees.units import tree_quantity_input, tree_quantity_parse
from trackers.quotatree import check_tree
from trackers.quotatree.document import TREE_NAME

MAX_DOCUMENT_BYTES = 5 * 2**20
# Names the pages' own addresses use under /trees/: a tree of that name would have no page.
RESERVED_NAMES = frozenset({"new", "forests", "consumers"})
NEW_ROW_QUOTA = "0"

ERR_NAME_REQUIRED = "give the tree a name"
ERR_NAME_FORMAT = (
    "use letters, digits, '.', '_' and '-' (starting with a letter or digit), at most 253"
)
ERR_NAME_RESERVED = "{name!r} is the address of another page here; choose another name"
ERR_TREE_EXISTS = (
    "a tree named {name!r} exists already; open it and choose Edit to make a new version of it"
)
ERR_NODE_NAME_MISSING = "this row has values but no node name: name it, or tick Remove"
ERR_NODE_DUPLICATE = "another row (row {row}) is already named {name!r}; node names are unique"
ERR_RESOURCE_DUPLICATE = "the resource {name!r} has two columns"
ERR_NO_RESOURCES = "a tree needs at least one resource"
ERR_NO_NODES = "a tree needs at least one node: its root"
ERR_DOC_NONE = "paste a QuotaTree document or choose a file to upload"
ERR_DOC_BOTH = "paste a document or upload a file, not both"
ERR_DOC_ENCODING = "the file is not UTF-8 text"
ERR_DOC_SIZE = "the document is {size} bytes; the most accepted is {limit} bytes"
ERR_DOC_JSON = "this is not JSON: {reason} (line {line}, column {column})"
ERR_DOC_OBJECT = (
    'a QuotaTree document is a JSON object ({{"kind": "QuotaTree", ...}}), not {kind}'
)
ERR_FOREST_NAME = ERR_NAME_FORMAT
ERR_FOREST_EXISTS = "a forest named {name!r} exists already; open it to change its trees"
ERR_FOREST_TREES = "name at least one tree"
ERR_FOREST_TREE_TWICE = "tree {name!r} is listed twice; a forest has each tree once"
ERR_MODE = "choose normal or maintenance"

RESOURCES_HELP = (
    "Each column is a resource every node has a quota of, in human units: cpu in cores or "
    "millicores (2, 500m), memory with a unit (64Gi, 512Mi), any other resource as a count. "
    "Clear a name to remove its column."
)
TREES_HELP = (
    "The trees, in the order allocations process them, separated by commas or spaces. A tree "
    "belongs to one forest at most."
)


@dataclass
class Cell:
    """One input of the editor: its name and id, what it holds, its label and its errors."""

    name: str
    label: str
    value: str = ""
    errors: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"id_{self.name}"


@dataclass
class Row:
    """A node row: name, parent, hard, a quota per resource column, remove."""

    index: int
    name: Cell
    parent: Cell
    hard: Cell
    quota: list[Cell]
    remove: Cell
    errors: list[str] = field(default_factory=list)
    # (value, text) of the parent select, set by TreeEditor.display_rows
    choices: list[tuple[str, str]] = field(default_factory=list)

    @property
    def node(self) -> str:
        return self.name.value.strip()

    @property
    def removed(self) -> bool:
        return self.remove.value == "on"

    @property
    def is_hard(self) -> bool:
        return self.hard.value == "on"

    @property
    def blank(self) -> bool:
        typed = [self.name.value, self.parent.value, *(c.value for c in self.quota)]
        return not any(text.strip() and text.strip() != NEW_ROW_QUOTA for text in typed) \
            and not self.is_hard

    @property
    def has_errors(self) -> bool:
        cells = [self.name, self.parent, self.hard, *self.quota]
        return bool(self.errors or any(cell.errors for cell in cells))


def _node_cells(index: int, node: str, columns: list[Cell]) -> list[Cell]:
    """The quota cells of row ``index``, one per resource column."""
    named = node or f"row {index + 1}"
    return [
        Cell(f"node-{index}-quota-{j}",
             f"Quota of {column.value or f'resource {j + 1}'} for {named}")
        for j, column in enumerate(columns)
    ]


def _input_text(resource: str, value: Any) -> str:
    """A stored quota as the editor shows it (``64Gi``, ``2`` cores); as written when it is not
    an amount (the document's check then says why)."""
    if value is None:
        return ""
    text = str(value).strip()
    if not text.isdigit():
        return text
    return tree_quantity_input(resource, int(text))


def _base_units(resource: str, text: str) -> str:
    """A typed quota in base units for the document (as typed when it does not read: the
    editor's check has put the error on its cell)."""
    try:
        return str(tree_quantity_parse(text, resource))
    except ValueError:
        return text


class TreeEditor:
    """The editor's state: the tree's name, the comment, the resource columns and the node rows,
    each input with its errors. Built from a document (to edit or import) or from a POST."""

    NODE_FIELD = re.compile(r"^node-(\d+)-name$")
    RESOURCE_FIELD = re.compile(r"^resource-(\d+)$")

    def __init__(self, *, tree: str | None) -> None:
        # tree: the name of the tree being edited (fixed by its address), None for a new one.
        self.tree = tree
        self.name = Cell("name", "Tree name", tree or "")
        self.comment = Cell("comment", "Comment (optional, kept with the version)")
        self.columns: list[Cell] = []
        self.rows: list[Row] = []
        self.errors: list[str] = []
        self.resource_errors: list[str] = []

    # -- building ---------------------------------------------------------------------------

    def _column(self, index: int, value: str) -> Cell:
        return Cell(f"resource-{index}", f"Resource {index + 1}", value)

    def _row(self, index: int, name: str = "", parent: str = "", hard: bool = False,
             quota: list[str] | None = None) -> Row:
        named = name or f"row {index + 1}"
        cells = _node_cells(index, name, self.columns)
        for cell, value in zip(cells, quota or [NEW_ROW_QUOTA] * len(cells), strict=False):
            cell.value = value
        return Row(
            index=index,
            name=Cell(f"node-{index}-name", f"Name of node {index + 1}", name),
            parent=Cell(f"node-{index}-parent", f"Parent of {named}", parent),
            hard=Cell(f"node-{index}-hard", f"{named} is hard", "on" if hard else ""),
            quota=cells,
            remove=Cell(f"node-{index}-remove", f"Remove {named}"),
        )

    @classmethod
    def blank(cls, *, resources: Iterable[str] = ("cpu", "memory")) -> TreeEditor:
        """A new tree: the given resources and one row for its root."""
        editor = cls(tree=None)
        editor.columns = [editor._column(j, name) for j, name in enumerate(resources)]
        editor.rows = [editor._row(0)]
        return editor

    @classmethod
    def from_document(cls, document: Any, *, tree: str | None) -> TreeEditor:
        """The rows of a ``QuotaTree`` document, read leniently (a document with problems still
        fills the rows the problems are then shown on). A quota of a resource the document
        does not list gets a column of its own, so its error has a cell to land on."""
        editor = cls(tree=tree)
        doc = document if isinstance(document, Mapping) else {}
        metadata = doc.get("metadata")
        if tree is None and isinstance(metadata, Mapping) and isinstance(metadata.get("name"), str):
            editor.name.value = metadata["name"]
        spec = doc.get("spec") if isinstance(doc.get("spec"), Mapping) else {}
        names = spec.get("resourceNames")
        resources = [str(n) for n in names] if isinstance(names, list) else []
        nodes = spec.get("nodes") if isinstance(spec.get("nodes"), Mapping) else {}
        for node in nodes.values():
            quota = node.get("quota") if isinstance(node, Mapping) else None
            if isinstance(quota, Mapping):
                resources.extend(str(r) for r in quota if str(r) not in resources)
        editor.columns = [editor._column(j, name) for j, name in enumerate(resources)]
        for index, (name, node) in enumerate(nodes.items()):
            node = node if isinstance(node, Mapping) else {}
            parent = node.get("parent")
            parent_text = "" if parent in (None, "", "nil") else str(parent)
            hard = node.get("hard")
            quota = node.get("quota") if isinstance(node.get("quota"), Mapping) else {}
            editor.rows.append(editor._row(
                index, str(name), parent_text,
                hard is True or (isinstance(hard, str) and hard.lower() == "true"),
                [_input_text(r, quota.get(r)) for r in resources],
            ))
        return editor

    @classmethod
    def from_post(cls, data: QueryDict, *, tree: str | None) -> TreeEditor:
        """What the admin typed (rows and columns in index order)."""
        editor = cls(tree=tree)
        if tree is None:
            editor.name.value = data.get("name", "").strip()
        editor.comment.value = data.get("comment", "").strip()
        column_ids = sorted(
            int(match.group(1)) for key in data if (match := cls.RESOURCE_FIELD.match(key))
        )
        editor.columns = [editor._column(position, data.get(f"resource-{j}", "").strip())
                          for position, j in enumerate(column_ids)]
        # keep the inputs' numbers: the cells of column j are named ...-quota-j
        for cell, j in zip(editor.columns, column_ids, strict=True):
            cell.name = f"resource-{j}"
        row_ids = sorted(
            int(match.group(1)) for key in data if (match := cls.NODE_FIELD.match(key))
        )
        for i in row_ids:
            name = data.get(f"node-{i}-name", "").strip()
            row = editor._row(
                i, name, data.get(f"node-{i}-parent", "").strip(),
                data.get(f"node-{i}-hard") == "on",
                [data.get(f"node-{i}-quota-{j}", "").strip() for j in column_ids],
            )
            for cell, j in zip(row.quota, column_ids, strict=True):
                cell.name = f"node-{i}-quota-{j}"
            row.remove.value = "on" if data.get(f"node-{i}-remove") == "on" else ""
            editor.rows.append(row)
        return editor

    def add_row(self) -> None:
        index = max((row.index for row in self.rows), default=-1) + 1
        self.rows.append(self._row(index))

    def add_column(self) -> None:
        index = max((int(c.name.split("-")[1]) for c in self.columns), default=-1) + 1
        position = len(self.columns)
        column = self._column(position, "")
        column.name = f"resource-{index}"
        self.columns.append(column)
        for row in self.rows:
            row.quota.append(Cell(f"node-{row.index}-quota-{index}",
                                  f"Quota of resource {position + 1} for "
                                  f"{row.node or f'row {row.index + 1}'}", NEW_ROW_QUOTA))

    # -- what it says ------------------------------------------------------------------------

    def node_names(self) -> list[str]:
        """The names of the rows kept (for the parent choices)."""
        return [row.node for row in self.rows if row.node and not row.removed]

    def parent_choices(self, row: Row) -> list[tuple[str, str]]:
        """(value, text) for a row's parent select: no parent (the root), every other node,
        and the current value even when no row has that name (a dangling parent stays shown)."""
        names = [name for name in self.node_names() if name != row.node]
        choices = [("", "none: this is the root")] + [(name, name) for name in names]
        current = row.parent.value
        if current and current not in names:
            choices.append((current, f"{current} (no such node)"))
        return choices

    @property
    def display_rows(self) -> list[Row]:
        """The rows with their parent choices, for the page."""
        for row in self.rows:
            row.choices = self.parent_choices(row)
        return self.rows

    def kept_rows(self) -> list[Row]:
        return [row for row in self.rows if not row.removed and not row.blank]

    def resources(self) -> list[tuple[int, Cell]]:
        """(column position, cell) of the columns with a name."""
        return [(j, cell) for j, cell in enumerate(self.columns) if cell.value]

    def tree_name(self) -> str:
        return self.tree if self.tree is not None else self.name.value

    def document(self) -> dict[str, Any]:
        """The ``QuotaTree`` document of the rows kept: quotas as typed (an empty cell is left
        out, which the document reads as 0)."""
        resources = self.resources()
        nodes: dict[str, Any] = {}
        for row in self.kept_rows():
            if not row.node or row.node in nodes:
                continue
            nodes[row.node] = {
                "parent": row.parent.value or "nil",
                "hard": "true" if row.is_hard else "false",
                "quota": {cell.value: _base_units(cell.value, row.quota[j].value)
                          for j, cell in resources if row.quota[j].value != ""},
            }
        return {
            "kind": "QuotaTree",
            "metadata": {"name": self.tree_name()},
            "spec": {"resourceNames": [cell.value for _, cell in resources], "nodes": nodes},
        }

    # -- checks --------------------------------------------------------------------------------

    @property
    def has_errors(self) -> bool:
        return bool(
            self.errors or self.resource_errors or self.name.errors
            or any(cell.errors for cell in self.columns)
            or any(row.has_errors for row in self.rows)
        )

    def check(self, *, taken: Iterable[str] = ()) -> bool:
        """Every problem of what was typed, each on its input: the rows' own (a name missing
        or used twice), a new tree's name, and then the document rules. True when none."""
        if self.tree is None:
            name = self.name.value
            if not name:
                self.name.errors.append(ERR_NAME_REQUIRED)
            elif name in RESERVED_NAMES:
                self.name.errors.append(ERR_NAME_RESERVED.format(name=name))
            elif not TREE_NAME.match(name):
                self.name.errors.append(ERR_NAME_FORMAT)
            elif name in set(taken):
                self.name.errors.append(ERR_TREE_EXISTS.format(name=name))
        seen_resources: set[str] = set()
        for _, cell in self.resources():
            if cell.value in seen_resources:
                cell.errors.append(ERR_RESOURCE_DUPLICATE.format(name=cell.value))
            seen_resources.add(cell.value)
        if not self.resources():
            self.resource_errors.append(ERR_NO_RESOURCES)
        seen: dict[str, Row] = {}
        for row in self.kept_rows():
            if not row.node:
                row.name.errors.append(ERR_NODE_NAME_MISSING)
            elif row.node in seen:
                row.name.errors.append(ERR_NODE_DUPLICATE.format(
                    row=self.rows.index(seen[row.node]) + 1, name=row.node))
            else:
                seen[row.node] = row
        if not seen and not any(row.name.errors for row in self.rows):
            self.errors.append(ERR_NO_NODES)
        structural = self.has_errors
        for row in self.kept_rows():
            for j, cell in self.resources():
                if row.quota[j].value != "":
                    try:
                        tree_quantity_parse(row.quota[j].value, cell.value)
                    except ValueError as error:
                        row.quota[j].errors.append(str(error))
        # The document's rules too (a parent unknown, two roots...), even beside an amount that
        # does not read: its cell keeps the unit error, said in the editor's words.
        if not structural:
            self.add_errors(check_tree(self.document()))
        return not self.has_errors

    def add_errors(self, errors: Iterable[Mapping[str, str]]) -> None:
        """Put each document error on the input it is about: ``path`` names the node (the
        tree for tree-wide problems), ``field`` is the JSON path in the document."""
        rows = {row.node: row for row in self.kept_rows() if row.node}
        resources = self.resources()
        for error in errors:
            path, where = error.get("path", ""), error.get("field", "")
            message = error.get("message", "")
            prefix = f"spec.nodes.{path}"
            row = rows.get(path)
            if row is not None and (where == prefix or where.startswith(prefix + ".")):
                self._row_error(row, where[len(prefix) + 1:], message)
            elif where.startswith("spec.resourceNames"):
                match = re.fullmatch(r"spec\.resourceNames\[(\d+)\]", where)
                position = int(match.group(1)) if match else -1
                if 0 <= position < len(resources):
                    resources[position][1].errors.append(message)
                else:
                    self.resource_errors.append(message)
            elif where == "metadata.name" and self.tree is None:
                self.name.errors.append(message)
            else:
                self.errors.append(message)

    def _row_error(self, row: Row, rest: str, message: str) -> None:
        if rest == "parent":
            row.parent.errors.append(message)
        elif rest == "hard":
            row.hard.errors.append(message)
        elif rest.startswith("quota."):
            resource = rest[len("quota."):]
            for j, cell in self.resources():
                if cell.value == resource:
                    if not row.quota[j].errors:
                        row.quota[j].errors.append(message)
                    return
            row.errors.append(message)
        else:
            row.errors.append(message)


class ImportForm(forms.Form):
    """A ``QuotaTree`` JSON document, pasted or uploaded."""

    text = forms.CharField(
        required=False, strip=False, label="Paste a QuotaTree document (JSON)",
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false", "class": "code"}),
    )
    upload = forms.FileField(required=False, label="or upload a file")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        text, upload = data.get("text") or "", data.get("upload")
        if upload is not None and text.strip():
            raise forms.ValidationError(ERR_DOC_BOTH)
        if upload is not None:
            if upload.size > MAX_DOCUMENT_BYTES:
                raise forms.ValidationError(
                    ERR_DOC_SIZE.format(size=upload.size, limit=MAX_DOCUMENT_BYTES))
            try:
                text = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError(ERR_DOC_ENCODING) from None
        if not text.strip():
            raise forms.ValidationError(ERR_DOC_NONE)
        if len(text.encode("utf-8")) > MAX_DOCUMENT_BYTES:
            raise forms.ValidationError(
                ERR_DOC_SIZE.format(size=len(text.encode()), limit=MAX_DOCUMENT_BYTES))
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise forms.ValidationError(ERR_DOC_JSON.format(
                reason=error.msg, line=error.lineno, column=error.colno)) from None
        if not isinstance(document, dict):
            raise forms.ValidationError(ERR_DOC_OBJECT.format(kind=type(document).__name__))
        data["document"] = document
        return data


def split_names(text: str) -> list[str]:
    return [name for name in re.split(r"[\s,]+", text.strip()) if name]


class ForestForm(forms.Form):
    """A forest's trees in order; a new forest also has a name."""

    name = forms.CharField(label="Forest name", max_length=64)
    trees = forms.CharField(label="Trees, in order", help_text=TREES_HELP)

    def __init__(self, *args: Any, forest: str | None = None,
                 taken: Iterable[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.forest = forest
        self.taken = set(taken)
        if forest is not None:
            del self.fields["name"]
        else:
            self.fields["trees"].widget.attrs["id"] = "id_new_forest_trees"
            self.fields["name"].widget.attrs["id"] = "id_new_forest_name"

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not TREE_NAME.match(name) or len(name) > 64:
            raise forms.ValidationError(ERR_FOREST_NAME)
        if name in self.taken:
            raise forms.ValidationError(ERR_FOREST_EXISTS.format(name=name))
        return name

    def clean_trees(self) -> list[str]:
        trees = split_names(self.cleaned_data["trees"])
        if not trees:
            raise forms.ValidationError(ERR_FOREST_TREES)
        for position, name in enumerate(trees):
            if name in trees[:position]:
                raise forms.ValidationError(ERR_FOREST_TREE_TWICE.format(name=name))
        return trees


class ModeForm(forms.Form):
    mode = forms.ChoiceField(
        choices=[("normal", "normal"), ("maintenance", "maintenance")],
        error_messages={"invalid_choice": ERR_MODE, "required": ERR_MODE},
    )

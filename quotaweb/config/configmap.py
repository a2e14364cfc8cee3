"""YuniKorn's ConfigMap around ``queues.yaml``: taken off on the way in, put on on the way out.

YuniKorn reads its queues from the ``queues.yaml`` key of the ``yunikorn-configs`` ConfigMap, so
admins often hold the ConfigMap rather than the bare document (``kubectl get configmap -o
yaml``). Every YAML import path (the configuration page, ``PUT /api/v1/config``, ``manage.py
import_config``) passes its text through ``configmap_unwrap``: a ConfigMap (or a ``List`` of
exactly one) gives its ``queues.yaml`` text, exactly as written, comments and all; the other keys
are named back as ignored. Anything else is handed on untouched.

``configmap_render`` puts a document back into a ConfigMap as a literal block scalar, so the
admin's comments and layout survive inside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

from quotaweb.config.services import ConfigRejected

QUEUES_KEY = "queues.yaml"
CONFIGMAP_NAME = "yunikorn-configs"
CONFIGMAP_NAMESPACE = "yunikorn"
CODE = "CONFIGMAP"

ERR_LIST_COUNT = (
    "the List holds {count} items; a configuration import takes a List of exactly one ConfigMap"
)
ERR_LIST_ITEM = "item {index} of the List is a {kind}, not a ConfigMap"
ERR_NO_QUEUES = (
    "ConfigMap {name!r} has no {key!r} key in data, which is where YuniKorn reads its queues; "
    "its keys: {keys}"
)
ERR_NOT_TEXT = "{key!r} of ConfigMap {name!r} must be text (a YAML document), not {kind}"
ERR_UNREADABLE = "the document is not YAML that can be read: {reason}"
WARN_IGNORED = (
    "Took the queues.yaml key of ConfigMap {name!r}; ignored its other keys, which quotaweb "
    "does not use: {keys}."
)

# Only a document that names one of these kinds is parsed twice; a plain queues.yaml never is.
_MAY_BE_WRAPPED = re.compile(r"^[ \t-]*kind[ \t]*:[ \t]*[\"']?(ConfigMap|List)\b", re.MULTILINE)


@dataclass(frozen=True)
class Unwrapped:
    """The queues document to validate, and what the import should tell the admin."""

    yaml_text: str
    configmap: str | None = None
    ignored: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default=())


def _problem(field_name: str, message: str) -> dict[str, str]:
    return {"code": CODE, "path": "", "field": field_name, "message": message}


def configmap_unwrap(*, text: str) -> Unwrapped:
    """The ``queues.yaml`` of a ConfigMap (or of a List of one), or ``text`` itself when it is
    not one. ``ConfigRejected`` when it is a ConfigMap or List quotaweb cannot take."""
    if _MAY_BE_WRAPPED.search(text) is None:
        return Unwrapped(yaml_text=text)
    try:
        document = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError):
        # Not readable as YAML at all: the validator says where, with its own line numbers.
        return Unwrapped(yaml_text=text)
    if not isinstance(document, dict):
        return Unwrapped(yaml_text=text)
    where = ""
    if document.get("kind") == "List":
        items = document.get("items")
        items = items if isinstance(items, list) else []
        if len(items) != 1:
            raise ConfigRejected([_problem("items", ERR_LIST_COUNT.format(count=len(items)))])
        document, where = items[0], "items[0]."
        kind = document.get("kind") if isinstance(document, dict) else type(document).__name__
        if kind != "ConfigMap":
            raise ConfigRejected([_problem(
                f"{where}kind", ERR_LIST_ITEM.format(index=0, kind=kind)
            )])
    elif document.get("kind") != "ConfigMap":
        return Unwrapped(yaml_text=text)
    metadata = document.get("metadata")
    name = str(metadata.get("name", "")) if isinstance(metadata, dict) else ""
    data = document.get("data")
    data = data if isinstance(data, dict) else {}
    binary = document.get("binaryData")
    keys = [str(key) for key in data] + (
        [str(key) for key in binary] if isinstance(binary, dict) else []
    )
    if QUEUES_KEY not in data:
        raise ConfigRejected([_problem(f"{where}data", ERR_NO_QUEUES.format(
            name=name, key=QUEUES_KEY, keys=", ".join(sorted(keys)) or "none",
        ))])
    queues = data[QUEUES_KEY]
    if not isinstance(queues, str):
        raise ConfigRejected([_problem(f"{where}data.{QUEUES_KEY}", ERR_NOT_TEXT.format(
            key=QUEUES_KEY, name=name, kind=type(queues).__name__,
        ))])
    ignored = tuple(sorted(key for key in keys if key != QUEUES_KEY))
    warnings = (WARN_IGNORED.format(name=name, keys=", ".join(ignored)),) if ignored else ()
    return Unwrapped(yaml_text=queues, configmap=name, ignored=ignored, warnings=warnings)


def _block(text: str, indent: str) -> str | None:
    """``text`` as a literal block scalar (header and lines), or None when one cannot hold it
    exactly (control characters, a stray carriage return, a tab or space leading a line...)."""
    if not text or any(ord(char) < 32 and char not in "\n\t" for char in text):
        return None
    body = text.rstrip("\n")
    trailing = len(text) - len(body)
    chomp = "-" if trailing == 0 else "" if trailing == 1 else "+"
    lines = body.split("\n")
    # A first line starting with a space needs its indentation said in the header.
    header = f"|{len(indent)}{chomp}" if lines[0][:1] in (" ", "\t") else f"|{chomp}"
    written = [f"{indent}{line}" if line else "" for line in lines]
    written.extend("" for _ in range(trailing - 1))
    return header + "\n" + "\n".join(written) + "\n"


def configmap_render(
    *, yaml_text: str, name: str = CONFIGMAP_NAME, namespace: str = CONFIGMAP_NAMESPACE
) -> str:
    """A ConfigMap holding ``yaml_text`` as its ``queues.yaml``, written as a block scalar so
    comments and layout read as the admin left them; read back, the key gives ``yaml_text``
    exactly (a text no block can hold is written quoted instead)."""
    head = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
        f"  name: {name}\n  namespace: {namespace}\ndata:\n"
    )
    block = _block(yaml_text, "    ")
    if block is not None:
        out = f"{head}  {QUEUES_KEY}: {block}"
        try:
            if yaml.safe_load(out)["data"][QUEUES_KEY] == yaml_text:
                return out
        except yaml.YAMLError:
            pass
    quoted = yaml.safe_dump({QUEUES_KEY: yaml_text}, default_style='"', width=4096)
    return head + "".join(f"  {line}\n" for line in quoted.splitlines())

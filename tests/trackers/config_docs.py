"""Small builders of config documents for the config tests."""

from __future__ import annotations

from typing import Any

import yaml

from trackers.config import validate_config


def doc(*partitions: dict[str, Any]) -> str:
    return yaml.safe_dump({"partitions": list(partitions)}, sort_keys=False)


def partition(*queues: dict[str, Any], name: str = "default", **extra: Any) -> dict[str, Any]:
    return {"name": name, **extra, "queues": list(queues)}


def queue(name: str, *children: dict[str, Any], **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, **fields}
    if children:
        out["queues"] = list(children)
    return out


def root(*children: dict[str, Any], **fields: Any) -> str:
    """A whole one-partition document whose explicit root has these children and fields."""
    return doc(partition(queue("root", *children, **fields)))


def limit(**fields: Any) -> dict[str, Any]:
    return dict(fields)


def errors(text: str) -> list[dict[str, str]]:
    return validate_config(text)


def codes(text: str) -> list[str]:
    return [error["code"] for error in validate_config(text)]


def messages(text: str) -> list[str]:
    return [error["message"] for error in validate_config(text)]


def first(text: str) -> dict[str, str]:
    found = validate_config(text)
    assert found, "expected the document to be rejected"
    return found[0]

"""A resource type that neither the configuration nor the trackers know (``memroy``) is staged
as written, YuniKorn accepting any type, but the admin is told so, with the closest known type."""

from __future__ import annotations

import html as markup

import pytest
from django.urls import reverse

from quotaweb.config import resource_types, views

pytestmark = pytest.mark.django_db

ML = reverse("config:queue", args=["default", "root.eng.ml"])


def _warning(kind: str, known: str) -> str:
    suggestion = resource_types.WARN_RESOURCE_SUGGESTION.format(known=known) if known else ""
    return markup.escape(views.WARN_RESOURCE_TYPE.format(kind=kind, suggestion=suggestion))


def _save_entry(client, max_resources: str) -> str:
    return client.post(ML, {
        "action": "limit-save", "index": "0", "limit-0-description": "lead",
        "limit-0-users": "alice", "limit-0-groups": "", "limit-0-max_resources": max_resources,
        "limit-0-max_applications": "3",
    }, follow=True).content.decode()


def test_a_misspelt_type_is_named_with_the_type_it_is_close_to(quota_admin_client, capped_tree):
    page = _save_entry(quota_admin_client, "memroy: 8G, vcore: 4")
    assert _warning("memroy", "memory") in page


def test_a_type_like_no_other_is_named_without_a_guess(quota_admin_client, capped_tree):
    page = _save_entry(quota_admin_client, "memory: 8G, fpga.example.com/board: 1")
    assert _warning("fpga.example.com/board", "") in page


def test_types_the_config_or_the_trackers_know_pass_quietly(quota_admin_client, capped_tree):
    # nvidia.com/gpu is known from root.eng.ml's max; memory and vcore from the trackers.
    page = _save_entry(quota_admin_client, "memory: 4G, vcore: 2, nvidia.com/gpu: 1")
    assert "is not a resource type" not in page

"""A pasted document naming a resource type that neither the active configuration nor the
trackers know (``memroy: 3Gi``) is valid, as YuniKorn accepts any type, but the YAML page warns
about it as the queue form does, with the closest known type, in the preview and once applied;
known types draw no warning."""

from __future__ import annotations

import html as markup

import pytest
from django.urls import reverse

from quotaweb.config import resource_types
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

YAML = reverse("config:yaml")


def _warning(kind: str, known: str) -> str:
    suggestion = resource_types.WARN_RESOURCE_SUGGESTION.format(known=known) if known else ""
    text = resource_types.WARN_UNKNOWN_RESOURCE_TYPE.format(kind=kind, suggestion=suggestion)
    return markup.escape(text)


def _preview(client, text: str) -> str:
    response = client.post(YAML, {"action": "preview", "text": text, "base_version": "1"})
    assert response.status_code == 200
    return response.content.decode()


def test_a_misspelt_type_is_warned_about_with_the_type_it_is_close_to(
    quota_admin_client, active_small
):
    page = _preview(quota_admin_client, SMALL_YAML.replace("memory: 60Gi", "memroy: 3Gi"))
    assert "data-valid" in page
    assert _warning("memroy", "memory") in page


def test_a_type_like_no_other_is_warned_about_without_a_guess(quota_admin_client, active_small):
    page = _preview(
        quota_admin_client, SMALL_YAML.replace("memory: 60Gi", "fpga.example.com/board: 1")
    )
    assert _warning("fpga.example.com/board", "") in page


def test_known_types_draw_no_warning(quota_admin_client, active_small):
    page = _preview(quota_admin_client, SMALL_YAML.replace("memory: 60Gi", "memory: 50Gi"))
    assert "data-valid" in page
    assert "data-yaml-warnings" not in page


def test_applying_without_a_preview_warns_on_the_version_page(quota_admin_client, active_small):
    response = quota_admin_client.post(YAML, {
        "action": "apply", "base_version": "1",
        "text": SMALL_YAML.replace("memory: 60Gi", "memroy: 3Gi"),
    }, follow=True)

    assert response.redirect_chain[-1][0] == reverse("config:version", args=[2])
    assert _warning("memroy", "memory") in response.content.decode()

"""A form field's ``aria-describedby`` names its hint and its errors, and those elements exist,
so a screen reader reads them when the field takes focus (they used to name no element)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

ML = reverse("config:queue", args=["default", "root.eng.ml"])
DESCRIBED = re.compile(r'<(?:input|textarea|select)[^>]*aria-describedby="([^"]+)"')


def _descriptions(html: str) -> dict[str, str]:
    """Each id a field points at, with the text of the element that has it."""
    found = {}
    for ids in DESCRIBED.findall(html):
        for ref in ids.split():
            element = re.search(rf'<(\w+)[^>]*\bid="{re.escape(ref)}"[^>]*>(.*?)</\1>', html, re.S)
            assert element, f"aria-describedby names {ref!r}, which no element has"
            found[ref] = re.sub(r"<[^>]+>", "", element.group(2))
    return found


def test_every_hint_a_field_points_at_is_on_the_page(quota_admin_client, capped_tree):
    found = _descriptions(quota_admin_client.get(ML).content.decode())
    assert any(ref.endswith("_helptext") for ref in found)


def test_a_fields_errors_are_what_it_points_at(quota_admin_client, capped_tree):
    response = quota_admin_client.post(ML, {
        "action": "limit-add", "new-limit-position": "1", "new-limit-description": "big",
        "new-limit-users": "bob", "new-limit-groups": "", "new-limit-max_resources": "",
        "new-limit-max_applications": "many",
    })
    assert response.status_code == 400
    found = _descriptions(response.content.decode())
    (error,) = [text for ref, text in found.items() if ref.endswith("_error")]
    assert "whole number" in error

"""A limit entry's max resources are entered as rows of a resource type (offered from the types
the configuration and the trackers know) and an amount, not as one free text string."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.config.forms import ERR_RESOURCE_ITEM
from quotaweb.config.models import Draft

pytestmark = pytest.mark.django_db

ML = reverse("config:queue", args=["default", "root.eng.ml"])


def _rows(prefix: str, *rows: tuple[str, str]) -> dict[str, str]:
    out = {}
    for index, (kind, amount) in enumerate(rows):
        out[f"{prefix}-max_resources-type-{index}"] = kind
        out[f"{prefix}-max_resources-amount-{index}"] = amount
    return out


def _entry_post(*rows: tuple[str, str]) -> dict[str, str]:
    return {
        "action": "limit-save", "index": "0", "limit-0-description": "lead",
        "limit-0-users": "alice", "limit-0-groups": "", "limit-0-max_applications": "3",
        **_rows("limit-0", *rows),
    }


def test_an_entry_shows_one_row_per_resource_and_empty_rows_to_add(
    quota_admin_client, capped_tree
):
    page = quota_admin_client.get(ML).content.decode()
    field = "limit-0-max_resources"
    assert f'name="{field}-type-0" id="id_{field}-type-0" value="memory"' in page
    assert f'name="{field}-amount-1" id="id_{field}-amount-1" value="4"' in page
    assert f'name="{field}-type-3" id="id_{field}-type-3" value=""' in page
    assert f'name="{field}-type-4"' not in page
    assert '<option value="nvidia.com/gpu">' in page
    assert '<label for="id_limit-0-max_resources-type-0">Max resources</label>' in page


def test_rows_are_staged_as_the_entry_s_max_resources(quota_admin_client, admin, capped_tree):
    response = quota_admin_client.post(
        ML, _entry_post(("memory", "8G"), ("vcore", "2"), ("", ""), ("", ""))
    )
    assert response.status_code == 302
    (record,) = Draft.objects.get(author=admin).edits
    assert record["args"]["values"] == {"max_resources": {"memory": "8G", "vcore": "2"}}


def test_a_row_without_an_amount_is_refused_on_the_field(quota_admin_client, admin, capped_tree):
    response = quota_admin_client.post(ML, _entry_post(("memory", "8G"), ("vcore", "")))
    html = response.content.decode()
    assert response.status_code == 400
    assert 'data-error-for="max_resources"' in html
    assert ERR_RESOURCE_ITEM.format(item="vcore:").replace("'", "&#x27;") in html
    # What was typed comes back in its rows.
    assert 'id="id_limit-0-max_resources-type-1" value="vcore"' in html
    assert not Draft.objects.filter(author=admin).exists()

"""Numbers typed into page URLs and forms are digits 0-9 only: "²" (which ``str.isdigit`` calls a
digit and ``int`` refuses) is a clear refusal, not a 500."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.html import escape

from quotaweb.config.views import ERR_AGAINST

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("against", ["²", "٣", "x"])
def test_a_diff_against_a_non_number_is_400(viewer_client, active_small, against):
    response = viewer_client.get(reverse("config:diff", args=[1]), {"against": against})

    assert response.status_code == 400
    assert escape(ERR_AGAINST.format(value=against)) in response.content.decode()


def test_unstaging_an_odd_position_is_answered(quota_admin_client, active_small):
    response = quota_admin_client.post(reverse("config:draft"), {"action": "unstage",
                                                                 "position": "²"})

    # No draft to take from (400 page) or nothing taken (back to the draft): never a 500.
    assert response.status_code in (302, 400)

"""Each page's "In use" figure reads in binary units with the exact values behind it on hover
(issue 14, item 1); ``static/js/live.js`` keeps the title in step when usage changes (its raw
text is checked against the server's in ``test_pages_match_live_js``)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.usage.pages import GiB, engines_busy

pytestmark = pytest.mark.django_db


def _in_use(client, name: str, *args: str) -> str:
    page = client.get(reverse(name, args=["default", *args])).content.decode()
    return page.split('data-field="usage"', 1)[1].split("</dd>", 1)[0]


def test_in_use_reads_gib_with_the_bytes_on_hover(viewer_client):
    engines_busy()
    assert _in_use(viewer_client, "usage:user", "alice") == (
        f' title="memory {9 * GiB} bytes">memory 9 GiB'
    )
    assert _in_use(viewer_client, "usage:group", "ml") == (
        f' title="memory {9 * GiB} bytes">memory 9 GiB'
    )
    assert _in_use(viewer_client, "usage:overview") == (
        f' title="memory {12 * GiB} bytes">memory 12 GiB'
    )

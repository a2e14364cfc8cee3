"""The YAML page carries the active document once: in the paste box for an admin (to edit in
place), in the read-only listing for a viewer; at 10,000 queues a second copy was megabytes.
A document too large for a light page is shown by its head, the download giving the rest, and
the paste box starts empty."""

from __future__ import annotations

import html as markup

import pytest
from django.urls import reverse

from quotaweb.config import views
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

YAML = reverse("config:yaml")
# A line of the document that only it holds (not the page's help texts).
MARKER = next(line.strip() for line in SMALL_YAML.splitlines() if "memory:" in line)


def _copies(page: str) -> int:
    return markup.unescape(page).count(MARKER)


def test_an_admin_gets_it_once_in_the_paste_box(quota_admin_client, active_small):
    page = quota_admin_client.get(YAML).content.decode()
    assert _copies(page) == SMALL_YAML.count(MARKER)
    assert '<textarea name="text"' in page
    assert "data-yaml-above" in page
    assert '<pre class="yaml"' not in page


def test_a_viewer_gets_it_once_in_the_listing(viewer_client, active_small):
    page = viewer_client.get(YAML).content.decode()
    assert _copies(page) == SMALL_YAML.count(MARKER)
    assert '<pre class="yaml"' in page
    assert "<textarea" not in page


def test_a_refused_paste_keeps_the_active_document_below(quota_admin_client, active_small):
    # The box then holds what was pasted, so the active one is shown below as before.
    response = quota_admin_client.post(YAML, {"action": "preview", "text": "partitions: [}"})
    assert response.status_code == 400
    assert '<pre class="yaml"' in response.content.decode()


def test_a_large_document_shows_its_head_and_an_empty_paste_box(
    quota_admin_client, viewer_client, active_small, monkeypatch
):
    monkeypatch.setattr(views, "YAML_SHOWN_BYTES", 100)
    monkeypatch.setattr(views, "YAML_HEAD_LINES", 3)
    head = "\n".join(SMALL_YAML.splitlines()[:3])
    for client in (quota_admin_client, viewer_client):
        page = client.get(YAML).content.decode()
        listing = page[page.index('<pre class="yaml"'):]
        listing = listing[listing.index("<code>") + 6:listing.index("</code>")]
        assert markup.unescape(listing) == head
        assert _copies(page) == 0  # the marker line is further down the document
        assert "data-yaml-head" in page
        assert f"The document is {len(SMALL_YAML.splitlines())} lines" in page
    page = quota_admin_client.get(YAML).content.decode()
    textarea = page[page.index('<textarea name="text"'):]
    assert textarea[textarea.index(">") + 1:textarea.index("</textarea>")].strip() == ""

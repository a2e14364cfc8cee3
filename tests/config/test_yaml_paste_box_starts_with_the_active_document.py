"""The YAML page's paste box starts with the active document, to edit in place; left as it is,
it does not stand in the way of an upload, while an edited one next to an upload is refused."""

from __future__ import annotations

import html as markup

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from quotaweb.config import forms
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

YAML = reverse("config:yaml")
TIGHTER = SMALL_YAML.replace("memory: 40Gi", "memory: 16Gi")


def _upload() -> SimpleUploadedFile:
    return SimpleUploadedFile("queues.yaml", TIGHTER.encode(), "application/yaml")


def test_the_paste_box_holds_the_active_document(quota_admin_client, active_small):
    page = quota_admin_client.get(YAML).content.decode()
    textarea = page[page.index('<textarea name="text"'):]
    textarea = textarea[textarea.index(">") + 1:textarea.index("</textarea>")]
    assert markup.unescape(textarea).strip() == SMALL_YAML.strip()


def test_an_upload_next_to_the_untouched_document_is_read(quota_admin_client, active_small):
    # As a browser sends it: the textarea's lines end in CRLF.
    response = quota_admin_client.post(YAML, {
        "action": "preview", "text": SMALL_YAML.replace("\n", "\r\n"), "upload": _upload(),
        "base_version": "1",
    })
    assert response.status_code == 200
    assert "data-preview" in response.content.decode()


def test_an_upload_next_to_an_edited_document_is_refused(quota_admin_client, active_small):
    response = quota_admin_client.post(YAML, {
        "action": "preview", "text": SMALL_YAML + "# mine\n", "upload": _upload(),
    })
    assert response.status_code == 400
    assert markup.escape(forms.ERR_YAML_BOTH) in response.content.decode()

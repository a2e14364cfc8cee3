"""The YAML page: everyone reads the active YAML; an admin pastes or uploads a whole document,
sees every error on its line, or a preview, and applies it as a new version."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from quotaweb.config import forms
from quotaweb.config.models import ConfigVersion
from tests.config.pages import posting_forms
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

YAML = reverse("config:yaml")
TIGHTER = SMALL_YAML.replace("memory: 40Gi, vcore: \"20\"", "memory: 16Gi, vcore: \"20\"")
INVALID = SMALL_YAML.replace("memory: 20Gi, vcore: \"10\"", "memory: 200Gi, vcore: \"10\"")


def test_a_viewer_reads_the_active_yaml_without_forms(viewer_client, active_small):
    response = viewer_client.get(YAML)
    html = response.content.decode()
    assert response.status_code == 200
    assert "limit: everyone else" in html
    assert posting_forms(html) == []
    assert viewer_client.post(YAML, {"text": SMALL_YAML}).status_code == 403


def test_every_error_is_shown_on_its_line_and_nothing_changes(quota_admin_client, active_small):
    response = quota_admin_client.post(YAML, {"action": "preview", "text": INVALID,
                                              "base_version": "1"})
    html = response.content.decode()
    assert response.status_code == 400
    line = INVALID.splitlines().index('                maxresources: {memory: 200Gi, vcore: "10"}')
    assert f'data-code="L12" data-line="{line + 1}"' in html
    assert f"<strong>line {line + 1}</strong>" in html
    assert "go above this queue&#x27;s max (memory 100 GiB)" in html
    assert INVALID.strip()[:40] in html  # the text stays in the form, to be fixed
    assert ConfigVersion.objects.count() == 1


def test_a_syntax_error_says_where(quota_admin_client, active_small):
    response = quota_admin_client.post(YAML, {"action": "preview", "text": "partitions: [\n"})
    assert response.status_code == 400
    assert (
        "YAML syntax error: while parsing a flow node did not find expected node content in "
        "&quot;&lt;unicode string&gt;&quot;, line 2, column 1 (rule PARSE)"
    ) in response.content.decode()


def test_a_valid_paste_is_previewed_then_applied(quota_admin_client, admin, active_small):
    preview = quota_admin_client.post(YAML, {"action": "preview", "text": TIGHTER,
                                             "base_version": "1"})
    html = preview.content.decode()
    assert preview.status_code == 200
    assert "data-valid" in html
    assert 'data-kind="limit" data-change="changed" data-queue="root.eng"' in html
    assert 'value="apply"' in html
    assert ConfigVersion.objects.count() == 1
    applied = quota_admin_client.post(YAML, {"action": "apply", "text": TIGHTER,
                                             "base_version": "1", "comment": "tighter"})
    assert applied["Location"] == reverse("config:version", args=[2])
    version = ConfigVersion.objects.get(number=2)
    assert (version.yaml, version.author, version.comment) == (TIGHTER, admin, "tighter")


def test_an_uploaded_file_is_read_as_utf8(quota_admin_client, active_small):
    upload = SimpleUploadedFile("queues.yaml", TIGHTER.encode(), "application/yaml")
    response = quota_admin_client.post(YAML, {"action": "preview", "upload": upload})
    assert response.status_code == 200
    assert "data-valid" in response.content.decode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, forms.ERR_YAML_NONE),
        ({"text": "   "}, forms.ERR_YAML_NONE),
        ({"text": TIGHTER, "upload": SimpleUploadedFile("a.yaml", b"x: 1")},
         forms.ERR_YAML_BOTH),
        ({"upload": SimpleUploadedFile("a.yaml", b"\xff\xfe\x00")}, forms.ERR_YAML_ENCODING),
    ],
)
def test_bad_submissions_say_what_is_wrong(quota_admin_client, active_small, data, message):
    response = quota_admin_client.post(YAML, {"action": "preview", **data})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert ConfigVersion.objects.count() == 1


def test_applying_from_an_old_base_is_a_conflict(quota_admin_client, active_small):
    quota_admin_client.post(YAML, {"action": "apply", "text": TIGHTER, "base_version": "1"})
    response = quota_admin_client.post(YAML, {"action": "apply", "text": INVALID.replace(
        "200Gi", "20Gi").replace("maxapplications: 6", "maxapplications: 5"), "base_version": "1"})
    assert response.status_code == 409
    assert "version 2 is active now" in response.content.decode()
    assert ConfigVersion.objects.count() == 2

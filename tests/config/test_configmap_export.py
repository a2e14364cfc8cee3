"""The configuration exported in YuniKorn's ConfigMap form (``GET /api/v1/config?format=
configmap``, the page's download, ``manage.py export_config --format configmap``): the document
sits in ``data["queues.yaml"]`` as a block scalar, so the admin's comments read as written, and
reading the key back gives the document exactly, whatever its text."""

from __future__ import annotations

import io

import pytest
import yaml
from django.core.management import call_command
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from quotaweb.api.views.config import ERR_FORMAT
from quotaweb.config.configmap import configmap_render, configmap_unwrap
from tests.config.pages import apply
from tests.configs import SMALL_YAML

COMMENTED = "# queues for the GPU cluster\n" + SMALL_YAML + "# end\n"


def _queues(text: str) -> str:
    document = yaml.safe_load(text)
    assert document["apiVersion"] == "v1"
    assert document["kind"] == "ConfigMap"
    assert document["metadata"] == {"name": "yunikorn-configs", "namespace": "yunikorn"}
    return document["data"]["queues.yaml"]


def test_the_document_is_a_block_with_its_comments():
    text = configmap_render(yaml_text=COMMENTED)

    assert "  queues.yaml: |\n    # queues for the GPU cluster\n" in text
    assert _queues(text) == COMMENTED


@given(st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=200))
def test_any_text_reads_back_exactly(text):
    rendered = configmap_render(yaml_text=text)

    assert _queues(rendered) == text
    assert configmap_unwrap(text=rendered).yaml_text == text


@pytest.mark.django_db
def test_the_api_answers_the_configmap(viewer_token, db):
    apply(COMMENTED)

    response = viewer_token.get("/api/v1/config?format=configmap")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/yaml")
    assert response["ETag"] == '"1"'
    assert _queues(response.content.decode()) == COMMENTED
    assert viewer_token.get("/api/v1/config?format=json").json()["yaml"] == COMMENTED


@pytest.mark.django_db
def test_another_format_is_a_400(viewer_token, db):
    apply(COMMENTED)

    response = viewer_token.get("/api/v1/config?format=xml")

    assert response.status_code == 400
    assert response.json()["message"] == ERR_FORMAT.format(value="xml")


@pytest.mark.django_db
def test_the_page_downloads_the_configmap(viewer_client, db):
    version = apply(COMMENTED)
    page = viewer_client.get(reverse("config:yaml")).content.decode()
    assert 'data-download="configmap"' in page

    response = viewer_client.get(
        reverse("config:version", args=[version.number]), {"download": "1", "format": "configmap"}
    )

    assert response["Content-Disposition"] == 'attachment; filename="yunikorn-configs-v1.yaml"'
    assert _queues(response.content.decode()) == COMMENTED


@pytest.mark.django_db
def test_the_command_prints_the_configmap(db):
    apply(COMMENTED)
    out = io.StringIO()

    call_command("export_config", "--format", "configmap", stdout=out)

    assert _queues(out.getvalue()) == COMMENTED

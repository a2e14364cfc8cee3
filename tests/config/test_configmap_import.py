"""A YuniKorn ConfigMap (``kubectl get configmap yunikorn-configs -o yaml``), or a List holding
exactly one, is taken by every YAML import path (the page, ``PUT /api/v1/config``,
``manage.py import_config``): its ``queues.yaml`` is stored as written, comments and all, and
the other keys are named back as ignored. A ConfigMap without the key is refused."""

from __future__ import annotations

import io

import pytest
import yaml
from django.core.management import call_command
from django.urls import reverse

from quotaweb.config.configmap import (
    ERR_LIST_COUNT,
    ERR_NO_QUEUES,
    ERR_NOT_TEXT,
    WARN_IGNORED,
    configmap_unwrap,
)
from quotaweb.config.models import ConfigVersion
from quotaweb.config.selectors import active_version
from quotaweb.config.services import ConfigRejected
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

QUEUES = "# tightened after the Q3 review\n" + SMALL_YAML.replace(
    "memory: 40Gi", "memory: 30Gi"
).replace("          - name: eng\n", "          # engineering, alice's share lowered\n"
          "          - name: eng\n")
OTHER_KEYS = ("admissionController.filtering.processNamespaces", "log.level",
              "service.schedulingInterval")


def _configmap(queues=QUEUES, *, keys=OTHER_KEYS) -> dict:
    return {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "yunikorn-configs", "namespace": "yunikorn",
                     "resourceVersion": "4711", "uid": "0c0ffee0-0000-4000-8000-000000000001"},
        "data": {**dict.fromkeys(keys, "1"), "queues.yaml": queues},
    }


def _text(document: dict) -> str:
    # kubectl writes a multi-line value as a block scalar; so does PyYAML's default style "|".
    return yaml.safe_dump(document, default_style=None, width=4096)


WARNING = WARN_IGNORED.format(name="yunikorn-configs", keys=", ".join(OTHER_KEYS))


def test_the_queues_key_is_taken_as_written():
    unwrapped = configmap_unwrap(text=_text(_configmap()))

    assert "# engineering" in unwrapped.yaml_text
    assert unwrapped.yaml_text == QUEUES
    assert unwrapped.ignored == OTHER_KEYS
    assert unwrapped.warnings == (WARNING,)


def test_a_list_of_one_configmap_is_taken():
    text = _text({"apiVersion": "v1", "kind": "List", "items": [_configmap(keys=())]})

    unwrapped = configmap_unwrap(text=text)

    assert unwrapped.yaml_text == QUEUES
    assert unwrapped.warnings == ()


def test_a_plain_document_is_handed_on_untouched():
    assert configmap_unwrap(text=SMALL_YAML).yaml_text == SMALL_YAML


@pytest.mark.parametrize(("document", "field", "message"), [
    ({"apiVersion": "v1", "kind": "List", "items": [_configmap(), _configmap()]}, "items",
     ERR_LIST_COUNT.format(count=2)),
    ({**_configmap(), "data": {"log.level": "1"}}, "data", ERR_NO_QUEUES.format(
        name="yunikorn-configs", key="queues.yaml", keys="log.level")),
    ({**_configmap(), "data": {"queues.yaml": {"partitions": []}}}, "data.queues.yaml",
     ERR_NOT_TEXT.format(key="queues.yaml", name="yunikorn-configs", kind="dict")),
])
def test_a_configmap_that_cannot_be_taken_is_refused(document, field, message):
    with pytest.raises(ConfigRejected) as refused:
        configmap_unwrap(text=_text(document))

    (problem,) = refused.value.errors
    assert problem["field"] == field
    assert problem["message"] == message


def test_the_page_previews_with_a_warning_then_applies_the_document(
    quota_admin_client, active_small
):
    url = reverse("config:yaml")
    preview = quota_admin_client.post(
        url, {"action": "preview", "text": _text(_configmap()), "base_version": "1"}
    )
    html = preview.content.decode()
    assert preview.status_code == 200
    assert "data-valid" in html
    assert "log.level" in html
    assert "ignored its other keys" in html

    applied = quota_admin_client.post(
        url, {"action": "apply", "text": _text(_configmap()), "base_version": "1"}
    )

    assert applied.status_code == 302
    assert active_version().yaml == QUEUES


def test_the_page_shows_a_refused_configmap_as_a_problem(quota_admin_client, active_small):
    text = _text({**_configmap(), "data": {"log.level": "1"}})

    response = quota_admin_client.post(
        reverse("config:yaml"), {"action": "preview", "text": text, "base_version": "1"}
    )

    assert response.status_code == 400
    assert 'data-code="CONFIGMAP"' in response.content.decode()
    assert ConfigVersion.objects.count() == 1


def test_the_api_put_answers_the_warning(admin_token, active_small):
    response = admin_token.put(
        "/api/v1/config", _text(_configmap()), content_type="application/yaml"
    )

    assert response.status_code == 200, response.json()
    assert response.json()["warnings"] == [WARNING]
    assert active_version().yaml == QUEUES


def test_the_api_dry_run_answers_the_warning_and_stores_nothing(admin_token, active_small):
    response = admin_token.put(
        "/api/v1/config?dry_run=1", _text(_configmap()), content_type="application/yaml"
    )

    assert response.status_code == 200
    assert response.json()["warnings"] == [WARNING]
    assert ConfigVersion.objects.count() == 1


def test_the_command_prints_the_warning(tmp_path, db):
    path = tmp_path / "yunikorn-configs.yaml"
    path.write_text(_text(_configmap()), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()

    call_command("import_config", str(path), stdout=out, stderr=err)

    assert out.getvalue().strip() == "1"
    assert err.getvalue().strip() == f"warning: {WARNING}"
    assert active_version().yaml == QUEUES

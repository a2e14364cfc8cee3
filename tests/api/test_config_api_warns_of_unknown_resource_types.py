"""Every configuration write of the API warns about a resource type that neither the version it
starts from nor the trackers know (``memroy``), in ``warnings``, with the words and the guess the
YAML page previews: the whole document (its dry run too, and beside a ConfigMap's ignored keys),
queue and limit writes, and an ElasticQuota import. The write itself goes through, as YuniKorn
accepts any type; known types draw no ``warnings`` at all, and the document is parsed once."""

from __future__ import annotations

import html as markup
import json

import pytest
import yaml
from django.urls import reverse

from quotaweb.config import selectors, services
from quotaweb.config.configmap import WARN_IGNORED
from quotaweb.config.models import ConfigVersion
from quotaweb.config.resource_types import WARN_RESOURCE_SUGGESTION, WARN_UNKNOWN_RESOURCE_TYPE
from tests.config.elasticquota_support import listing, quota
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

URL = "/api/v1/config"
ENG = "/api/v1/partitions/default/queues/root.eng"
MISSPELT = SMALL_YAML.replace("{memory: 60Gi}", "{memroy: 3Gi}")
STRANGE = SMALL_YAML.replace("{memory: 60Gi}", "{memory: 60Gi, fpga.example.com/board: 1}")


def _warning(kind: str, known: str = "") -> str:
    suggestion = WARN_RESOURCE_SUGGESTION.format(known=known) if known else ""
    return WARN_UNKNOWN_RESOURCE_TYPE.format(kind=kind, suggestion=suggestion)


def _put(client, text: str, query: str = ""):
    return client.put(URL + query, text, content_type="application/yaml")


def _send(client, method: str, url: str, body: dict):
    return getattr(client, method)(url, json.dumps(body), content_type="application/json")


@pytest.mark.parametrize("query", ["", "?dry_run=1"])
def test_a_misspelt_type_is_warned_about_with_the_type_it_is_close_to(
    admin_token, active_small, query
):
    response = _put(admin_token, MISSPELT, query)

    assert response.status_code == 200, response.json()
    assert response.json()["warnings"] == [_warning("memroy", "memory")]


def test_the_write_goes_through_as_yunikorn_would_take_it(admin_token, active_small):
    response = _put(admin_token, STRANGE)

    assert response.status_code == 200
    assert response.json()["warnings"] == [_warning("fpga.example.com/board")]
    assert selectors.active_version().yaml == STRANGE


def test_the_api_and_the_yaml_page_give_the_same_warnings(
    admin_token, quota_admin_client, active_small
):
    text = MISSPELT.replace("{memory: 20Gi, vcore: \"10\"}", "{memory: 20Gi, vcores: \"10\"}")
    api = _put(admin_token, text, "?dry_run=1").json()["warnings"]
    page = quota_admin_client.post(
        reverse("config:yaml"), {"action": "preview", "text": text, "base_version": "1"}
    ).content.decode()

    assert api == [_warning("memroy", "memory"), _warning("vcores", "vcore")]
    for warning in api:
        assert f"<li>{markup.escape(warning)}</li>" in page


def test_known_types_draw_no_warnings(admin_token, active_small):
    put = _put(admin_token, SMALL_YAML.replace("memory: 60Gi", "memory: 50Gi"))
    dry_run = _put(admin_token, SMALL_YAML, "?dry_run=1")

    assert put.status_code == dry_run.status_code == 200
    assert "warnings" not in put.json()
    assert "warnings" not in dry_run.json()


def test_a_type_the_active_version_names_is_known(admin_token, active_small):
    assert _put(admin_token, STRANGE).status_code == 200

    again = _put(admin_token, STRANGE.replace("board: 1", "board: 2"))

    assert again.status_code == 200
    assert "warnings" not in again.json()


def test_a_configmaps_ignored_keys_and_unknown_types_are_both_said(admin_token, active_small):
    configmap = {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "yunikorn-configs"},
        "data": {"log.level": "1", "queues.yaml": MISSPELT},
    }
    response = _put(admin_token, yaml.safe_dump(configmap))

    assert response.json()["warnings"] == [
        WARN_IGNORED.format(name="yunikorn-configs", keys="log.level"),
        _warning("memroy", "memory"),
    ]


def test_the_whole_document_is_parsed_once(admin_token, active_small, monkeypatch):
    parsed = []

    def counting(parse):
        def wrapper(*args, **kwargs):
            parsed.append(parse.__module__)
            return parse(*args, **kwargs)
        return wrapper

    # Every reader of a whole document in the write's path: the validation and the cache of
    # stored versions' models (which the warnings read, and the impact after the write).
    monkeypatch.setattr(services, "parse_config", counting(services.parse_config))
    monkeypatch.setattr(services, "read_config_beside", counting(services.read_config_beside))
    monkeypatch.setattr(selectors, "parse_config", counting(selectors.parse_config))

    response = _put(admin_token, MISSPELT)

    assert response.json()["warnings"] == [_warning("memroy", "memory")]
    assert len(parsed) == 1


def test_queue_writes_warn_about_their_types(admin_token, active_small):
    created = _send(admin_token, "post", "/api/v1/partitions/default/queues/", {
        "name": "lab", "guaranteed": {"memroy": "1Gi"},
    })
    patched = _send(admin_token, "patch", f"{ENG}/", {"max": {"memory": "100Gi", "vcroe": "9"}})
    quiet = _send(admin_token, "patch", f"{ENG}/", {"max_applications": 7})

    assert created.status_code == 201, created.json()
    assert created.json()["warnings"] == [_warning("memroy", "memory")]
    assert patched.status_code == 200, patched.json()
    assert patched.json()["warnings"] == [_warning("vcroe", "vcore")]
    assert quiet.status_code == 200
    assert "warnings" not in quiet.json()


def test_limit_writes_warn_about_their_types(admin_token, active_small):
    created = _send(admin_token, "post", f"{ENG}/limits/", {
        "users": ["bob"], "max_resources": {"memroy": "1Gi"},
    })
    patched = _send(admin_token, "patch", f"{ENG}/limits/0/", {
        "max_resources": {"memory": "40Gi", "fpga.example.com/board": "1"},
    })

    assert created.status_code == 201, created.json()
    assert created.json()["warnings"] == [_warning("memroy", "memory")]
    assert patched.status_code == 200, patched.json()
    assert patched.json()["warnings"] == [_warning("fpga.example.com/board")]


@pytest.mark.parametrize("query", ["", "?dry_run=1"])
def test_an_elasticquota_import_warns_about_its_types(admin_token, active_small, query):
    objects = listing(quota("lab", spec={"max": {"cpu": "4", "memroy": "1Gi"}}))
    response = admin_token.post(
        f"/api/v1/partitions/default/import/elasticquota{query}", objects,
        content_type="application/yaml",
    )

    assert response.status_code == 200, response.json()
    assert response.json()["warnings"] == [_warning("memroy", "memory")]
    assert ConfigVersion.objects.count() == (1 if query else 2)

"""With elastic quota on, every configuration change must keep the elastic rules too (E- codes,
in the same structured errors as the other rules, on the field they are about), and elastic
quota cannot be turned on over a configuration that breaks them."""

from __future__ import annotations

import pytest

from quotaweb.config.selectors import active_version_number
from tests.configs import ELASTIC_YAML
from tests.elastic.support import ELASTIC, SETTINGS
from trackers.elastic import messages

pytestmark = pytest.mark.django_db

CONFIG = "/api/v1/config"
# b's min names memory, which b's max does not: E-S4
BROKEN = ELASTIC_YAML.replace(
    "{guaranteed: {gpu: 15}, max: {gpu: 60}}",
    "{guaranteed: {gpu: 15, memory: 1Gi}, max: {gpu: 60}}",
)
# e's leaves ask for a min under a parent that has none: E-T5
UNDER_NO_MIN = ELASTIC_YAML.replace(
    "- name: e1\n                resources: {max: {gpu: 50}}",
    "- name: e1\n                resources: {guaranteed: {gpu: 5}, max: {gpu: 50}}",
)


def _put(api, text: str):
    return api.put(CONFIG, text.encode(), content_type="application/yaml")


def test_off_a_config_breaking_elastic_rules_is_accepted(admin_api, active_elastic):
    assert _put(admin_api, BROKEN).status_code == 200
    assert _put(admin_api, UNDER_NO_MIN).status_code == 200


def test_on_a_config_breaking_a_rule_is_refused_with_the_rule_and_field(
    admin_api, active_elastic
):
    assert admin_api.put(SETTINGS, {"enabled": True}, format="json").status_code == 200
    answer = _put(admin_api, BROKEN)
    assert answer.status_code == 400
    (error,) = answer.json()["details"]
    assert error["code"] == messages.CODE_MIN_KEY
    assert error["path"] == "root.b"
    assert error["field"].endswith("queues[1].resources.guaranteed.memory")
    assert active_version_number() == 1

    answer = _put(admin_api, UNDER_NO_MIN)
    assert answer.status_code == 400
    # the min sum (T5) and the min keys (T4) both fail: e has no min of gpu at all
    details = answer.json()["details"]
    assert sorted(e["code"] for e in details) == sorted([messages.CODE_MIN_SUM,
                                                         messages.CODE_KEYS])
    assert {e["path"] for e in details} == {"root.e.e1"}
    assert active_version_number() == 1


def test_validate_conf_gives_the_same_verdict(admin_api, active_elastic):
    admin_api.put(SETTINGS, {"enabled": True}, format="json")
    answer = admin_api.post("/ws/v1/validate-conf", BROKEN.encode(),
                            content_type="application/yaml")
    assert answer.json()["allowed"] is False
    assert "memory" in answer.json()["reason"]


def test_elastic_quota_is_not_turned_on_over_a_config_that_breaks_its_rules(
    admin_api, active_elastic
):
    assert _put(admin_api, BROKEN).status_code == 200
    answer = admin_api.put(SETTINGS, {"enabled": True}, format="json")
    assert answer.status_code == 409
    assert answer.json()["error"] == "elastic_rules"
    assert [e["code"] for e in answer.json()["details"]] == [messages.CODE_MIN_KEY]
    assert admin_api.get(ELASTIC).json()["enabled"] is False

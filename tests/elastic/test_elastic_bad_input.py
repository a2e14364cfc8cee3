"""Bad elastic input (negative or non-integer resources, malformed bodies) gets a clear 400 saying
what is wrong, and changes nothing, stored or live. (A demand for an unknown queue, 404, and for
a parent queue, 409, are in test_elastic_api.)"""

from __future__ import annotations

import pytest

from quotaweb.elastic.models import ElasticDemand, ElasticSettings
from tests.elastic.support import DEMAND, ELASTIC, SETTINGS, TOTAL, gpus

pytestmark = pytest.mark.django_db


def _state(api) -> tuple:
    view = api.get(ELASTIC).json()
    view.pop("computedAt")
    view.pop("generation")
    stored = (
        list(ElasticSettings.objects.values_list("partition", "enabled", "cluster_total")),
        list(ElasticDemand.objects.values_list("partition", "queue_path", "resource")),
    )
    return view, stored


@pytest.fixture
def before(admin_api, active_elastic):
    admin_api.put(TOTAL, gpus(100), format="json")
    admin_api.put(DEMAND, {"queuePath": "root.a", "resource": gpus(5)}, format="json")
    return _state(admin_api)


@pytest.mark.parametrize(("path", "body", "words"), [
    (DEMAND, {"queuePath": "root.a", "resource": {"gpu": -1}}, ["gpu", "non-negative"]),
    (DEMAND, {"queuePath": "root.a", "resource": {"gpu": "5Gi"}}, ["gpu", "integer"]),
    (DEMAND, {"queuePath": "root.a", "resource": {"gpu": 1.5}}, ["gpu", "integer"]),
    (DEMAND, {"queuePath": "root.a", "resource": {"gpu": True}}, ["gpu", "integer"]),
    (DEMAND, {"queuePath": "root.a", "resource": [1]}, ["demand", "map"]),
    (DEMAND, {"queuePath": 7, "resource": gpus(1)}, ["7"]),
    (DEMAND, {"resource": gpus(1)}, ["queuePath", "required"]),
    (DEMAND, {"queuePath": "root.a"}, ["resource", "required"]),
    (DEMAND, [1, 2], ["JSON object"]),
    (TOTAL, {"gpu": -5}, ["cluster total", "gpu"]),
    (TOTAL, {"gpu": 2**63}, ["cluster total", "gpu", str(2**63 - 1)]),
    (DEMAND, {"queuePath": "root.a", "resource": {"gpu": 2**63}}, ["gpu", str(2**63 - 1)]),
    (TOTAL, {"": 5}, ["cluster total"]),
    (TOTAL, "100Gi", ["cluster total", "map"]),
    (SETTINGS, {"enabled": "yes"}, ["enabled", "true or false"]),
    (SETTINGS, {}, ["enabled", "required"]),
])
def test_bad_input_is_a_clear_400_and_changes_nothing(admin_api, before, path, body, words):
    answer = admin_api.put(path, body, format="json")
    assert answer.status_code == 400, answer.json()
    message = answer.json()["message"]
    for word in words:
        assert word in message, message
    assert _state(admin_api) == before


def test_a_body_that_is_not_json_is_a_400(admin_api, before):
    answer = admin_api.put(DEMAND, b"{not json", content_type="application/json")
    assert answer.status_code == 400
    assert _state(admin_api) == before

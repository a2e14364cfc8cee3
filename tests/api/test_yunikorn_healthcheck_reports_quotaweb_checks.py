"""``/ws/v1/scheduler/healthcheck``: quotaweb's own checks (engines loaded, ledger database,
channel layer) in YuniKorn's ``SchedulerHealthDAOInfo`` (``Healthy``, ``HealthChecks`` of
``Name``, ``Succeeded``, ``Description``, ``DiagnosisMessage``). Like YuniKorn it answers 200
either way: ``Healthy`` says the verdict."""

from __future__ import annotations

import pytest

from quotaweb.api.scheduler_health import CHECK_ENGINES, CHECK_LAYER, CHECK_LEDGER

pytestmark = pytest.mark.django_db

HEALTH = "/ws/v1/scheduler/healthcheck"


def _checks(answer: dict) -> dict[str, dict]:
    return {check["Name"]: check for check in answer["HealthChecks"]}


def test_healthy_with_engines_a_database_and_a_layer(viewer_token, capped_engines):
    response = viewer_token.get(HEALTH)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    answer = response.json()
    assert list(answer) == ["Healthy", "HealthChecks"]
    assert answer["Healthy"] is True
    checks = _checks(answer)
    assert list(checks) == [CHECK_ENGINES, CHECK_LEDGER, CHECK_LAYER]
    for check in checks.values():
        assert set(check) == {"Name", "Succeeded", "Description", "DiagnosisMessage"}
        assert check["Succeeded"] is True
        assert check["Description"]
        assert check["DiagnosisMessage"]
    assert checks[CHECK_ENGINES]["DiagnosisMessage"] == "Engines loaded for partitions: [default]"


def test_unhealthy_while_the_engines_are_not_loaded(viewer_token):
    response = viewer_token.get(HEALTH)

    assert response.status_code == 200
    answer = response.json()
    assert answer["Healthy"] is False
    checks = _checks(answer)
    assert checks[CHECK_ENGINES]["Succeeded"] is False
    assert "starting" in checks[CHECK_ENGINES]["DiagnosisMessage"]
    # The other checks still run and say what they found.
    assert checks[CHECK_LEDGER]["Succeeded"] is True
    assert checks[CHECK_LAYER]["Succeeded"] is True


def test_unhealthy_when_redis_does_not_answer(viewer_token, capped_engines, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1

    answer = viewer_token.get(HEALTH).json()

    assert answer["Healthy"] is False
    layer = _checks(answer)[CHECK_LAYER]
    assert layer["Succeeded"] is False
    assert layer["DiagnosisMessage"].startswith("Redis did not answer")

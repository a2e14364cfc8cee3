"""``POST /ws/v1/validate-conf``: the same parse and validation as a real load, always 200,
``{"allowed": true}`` or ``{"allowed": false, "reason": "<first error>"}``, applying nothing."""

from __future__ import annotations

import pytest

from quotaweb.config.models import ConfigVersion
from trackers import validate_config
from trackers.config.loader import MAX_BYTES

pytestmark = pytest.mark.django_db

URL = "/ws/v1/validate-conf"

# Two errors: the reason is the first the validator reports.
TWO_ERRORS = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            resources:
              max: {memory: 10Gi}
            limits:
              - users: [alice]
                maxresources: {memory: 20Gi}
              - users: ["1bad"]
                maxresources: {memory: 1Gi}
"""


def _post(client, body, content_type="application/yaml"):
    return client.post(URL, body, content_type=content_type)


def test_a_valid_document_is_allowed_without_a_reason(viewer_token, sample_yaml):
    response = _post(viewer_token, sample_yaml)

    assert response.status_code == 200
    assert response.json() == {"allowed": True}


def test_an_invalid_document_gives_the_first_error_as_reason(viewer_token):
    errors = validate_config(TWO_ERRORS)
    assert len(errors) >= 2

    response = _post(viewer_token, TWO_ERRORS)

    assert response.status_code == 200
    assert response.json() == {"allowed": False, "reason": errors[0]["message"]}


@pytest.mark.parametrize("body", ["partitions: [", "- just a list", "partitions:\n  - nme: x\n"])
def test_broken_yaml_is_refused_with_a_reason(viewer_token, body):
    response = _post(viewer_token, body)

    assert response.status_code == 200
    assert response.json()["allowed"] is False
    assert response.json()["reason"]


@pytest.mark.parametrize("body", ["", "partitions: []\n"])
def test_an_empty_config_is_allowed_as_in_yunikorn(viewer_token, body):
    assert _post(viewer_token, body).json() == {"allowed": True}


@pytest.mark.parametrize("content_type", [
    "text/plain", "application/x-www-form-urlencoded", "application/json", "text/yaml",
    "application/octet-stream",
])
def test_the_body_is_read_whatever_its_content_type(viewer_token, sample_yaml, content_type):
    # curl -d @queues.yaml labels the body as a form; YuniKorn reads it as YAML all the same.
    assert _post(viewer_token, sample_yaml, content_type).json() == {"allowed": True}


def test_a_body_that_is_not_utf8_is_refused_with_200(viewer_token):
    response = _post(viewer_token, b"partitions: \xff\xfe")

    assert response.status_code == 200
    assert response.json()["allowed"] is False


def test_a_body_over_the_loader_limit_is_refused_with_200(viewer_token):
    response = _post(viewer_token, "#" * (MAX_BYTES + 10))

    assert response.status_code == 200
    assert response.json()["allowed"] is False
    assert str(MAX_BYTES) in response.json()["reason"]


def test_hostile_yaml_is_refused_with_200(viewer_token):
    bomb = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
        f'{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},'
        f'*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n'
        for i in range(9)
    )

    response = _post(viewer_token, bomb)

    assert response.status_code == 200
    assert response.json()["allowed"] is False


def test_validation_applies_nothing(admin_token, active_small, sample_yaml):
    before = active_small.version("default")

    assert _post(admin_token, sample_yaml).json() == {"allowed": True}

    assert ConfigVersion.objects.count() == 1
    assert active_small.version("default") == before
    assert active_small.partitions() == ["default"]

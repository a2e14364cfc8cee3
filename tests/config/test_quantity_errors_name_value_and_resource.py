"""A quantity the validator refuses is named with its resource and value, in the same words on
the queue form, on the YAML page and in the API's details: "invalid quantity" twice told an
admin neither which value nor which resource to fix."""

from __future__ import annotations

import html as html_lib
import json

import pytest
from django.urls import reverse

from tests.configs import SMALL_YAML
from trackers.config import messages
from trackers.config.scope import quantity_detail
from trackers.resources import INVALID_QUANTITY, INVALID_SUFFIX, OVERFLOW

pytestmark = pytest.mark.django_db

ENG_PAGE = reverse("config:queue", args=["default", "root.eng"])
ENG_API = "/api/v1/partitions/default/queues/root.eng/"
YAML = reverse("config:yaml")

LOTS = messages.DETAIL_NOT_A_QUANTITY.format(
    kind="memory", value="'lots'", examples=messages.QUANTITY_EXAMPLES_MEMORY
)
NEGATIVE = messages.DETAIL_QUANTITY_NEGATIVE.format(kind="vcore", value="-3")


def test_the_details_read_as_the_issue_asks():
    assert LOTS == (
        "memory: 'lots' is not a quantity (expected a number with an optional unit such as "
        "512Mi, 4Gi)"
    )
    assert NEGATIVE == "vcore: -3 is negative"


@pytest.mark.parametrize(("kind", "raw", "error", "expected"), [
    ("vcore", -3, INVALID_QUANTITY, "vcore: -3 is negative"),
    ("memory", "500m", INVALID_SUFFIX, "memory: '500m' has a unit memory does not take"),
    ("memory", "99999999999E", OVERFLOW, "memory: '99999999999E' is too large"),
    ("nvidia.com/gpu", "", INVALID_QUANTITY, "nvidia.com/gpu: no quantity is written"),
    ("vcore", None, INVALID_QUANTITY, "vcore: no quantity is written"),
    ("vcore", "1.5", INVALID_QUANTITY, "vcore: '1.5' is not a quantity"),
])
def test_each_kind_of_bad_value_is_named(kind, raw, error, expected):
    assert quantity_detail(kind, raw, error).startswith(expected)


def test_the_queue_form_names_each_bad_value_on_the_max_field(quota_admin_client, active_small):
    response = quota_admin_client.post(ENG_PAGE, {
        "action": "queue-save", "queue-name": "eng", "queue-guaranteed": "",
        "queue-max": "memory: lots, vcore: -3", "queue-max_applications": "",
        "queue-properties": "", "queue-submit_acl": "", "queue-admin_acl": "", "queue-kind": "",
    }, follow=True)
    page = html_lib.unescape(response.content.decode())
    assert f'data-error-for="max">{LOTS} (rule QTY)' in page
    assert f'data-error-for="max">{NEGATIVE} (rule QTY)' in page


def test_the_api_gives_the_same_words_in_its_details(admin_token, active_small):
    response = admin_token.patch(
        ENG_API, json.dumps({"max": {"memory": "lots", "vcore": -3}}),
        content_type="application/json",
    )
    assert response.status_code == 400
    details = {
        error["field"].rsplit(".", 1)[-1]: error
        for error in response.json()["details"] if error["code"] == "QTY"
    }
    assert details["memory"]["detail"] == LOTS
    assert details["vcore"]["detail"] == NEGATIVE
    # YuniKorn's own text stays in ``message``, for comparison with YuniKorn.
    assert details["memory"]["message"] == INVALID_QUANTITY


def test_the_yaml_page_names_the_bad_value_on_its_line(quota_admin_client, active_small):
    text = SMALL_YAML.replace(
        'max: {memory: 100Gi, vcore: "100"}', "max: {memory: lots, vcore: -3}"
    )
    response = quota_admin_client.post(YAML, {"action": "preview", "text": text,
                                              "base_version": "1"})
    page = html_lib.unescape(response.content.decode())
    assert response.status_code == 400
    assert f"{LOTS} (rule QTY)" in page
    assert f"{NEGATIVE} (rule QTY)" in page

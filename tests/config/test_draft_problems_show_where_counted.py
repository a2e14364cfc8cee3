"""Every problem the queue page counts is visible: each limit-entry editor holding one is open
(not only the first editor with a problem), and each problem sits on the field an admin changes
to fix it: R1 on max as well as guaranteed, H3 on the entry's max applications."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.urls import reverse

from quotaweb.config import views
from tests.config.pages import apply

pytestmark = pytest.mark.django_db

ML = reverse("config:queue", args=["default", "root.eng.ml"])

NESTED_LIMITS_YAML = """\
partitions:
  - name: default
    queues:
      - name: root
        queues:
          - name: eng
            limits:
              - limit: eng lead
                users: [alice]
                maxapplications: 4
            queues:
              - name: ml
                resources:
                  guaranteed: {memory: 10G}
                  max: {memory: 20G}
                limits:
                  - limit: lead
                    users: [alice]
                    maxapplications: 2
                  - limit: bob
                    users: [bob]
                    maxapplications: 1
"""


@pytest.fixture
def nested_limits(db):
    return apply(NESTED_LIMITS_YAML)


def _queue_post(**values: str) -> dict[str, str]:
    data = {
        "name": "ml", "guaranteed": "memory: 10G", "max": "memory: 20G", "max_applications": "",
        "properties": "", "submit_acl": "", "admin_acl": "", "kind": "",
    }
    data.update(values)
    return {"action": "queue-save", **{f"queue-{key}": value for key, value in data.items()}}


def _limit_post(index: int, **values: str) -> dict[str, str]:
    data = {"description": "", "users": "", "groups": "", "max_resources": "",
            "max_applications": ""}
    data.update(values)
    prefix = f"limit-{index}"
    return {"action": "limit-save", "index": str(index),
            **{f"{prefix}-{key}": value for key, value in data.items()}}


def _field_errors(page: str, field_id: str) -> list[str]:
    found = re.search(rf'<div id="id_{re.escape(field_id)}_error">(.*?)</div>', page, re.S)
    if found is None:
        return []
    return [html_lib.unescape(text) for text in re.findall(r">([^<]+)</p>", found.group(1))]


def _stage_both(client) -> str:
    client.post(ML, _limit_post(1, description="bob", users="bob", max_applications="1"))
    client.post(ML, _limit_post(0, description="lead", users="alice", max_applications="6"))
    client.post(ML, _queue_post(max="memory: 5G"))
    return client.get(ML).content.decode()


def test_every_editor_holding_a_counted_problem_is_open(quota_admin_client, nested_limits):
    page = _stage_both(quota_admin_client)
    assert views.DRAFT_PROBLEMS_HEADING.format(count=2, plural="s") in page
    assert 'data-editor="queue" open' in page
    assert 'data-editor="limit-0" open' in page
    # The entry without a problem stays closed.
    assert 'data-editor="limit-1" open' not in page


def test_guaranteed_above_max_shows_on_max_and_on_guaranteed(quota_admin_client, nested_limits):
    page = _stage_both(quota_admin_client)
    (on_max,) = _field_errors(page, "queue-max")
    (on_guaranteed,) = _field_errors(page, "queue-guaranteed")
    assert on_max == on_guaranteed
    assert on_max.endswith("(rule R1)")


def test_an_applications_cap_above_a_parents_shows_on_max_applications(
    quota_admin_client, nested_limits
):
    page = _stage_both(quota_admin_client)
    (on_apps,) = _field_errors(page, "limit-0-max_applications")
    assert on_apps.endswith("(rule H3)")
    assert "user alice gets max applications 6 here" in on_apps
    assert _field_errors(page, "limit-0-users") == []

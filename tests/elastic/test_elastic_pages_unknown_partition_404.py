"""An unknown partition answers 404 on every elastic page, with the partitions there are."""

from __future__ import annotations

import pytest

from tests.elastic.pages import explain_url, page_url, switch_url, total_url

pytestmark = pytest.mark.django_db


def test_the_page_and_the_explanation(viewer_client, active_elastic):
    response = viewer_client.get(page_url("nope"))
    assert response.status_code == 404
    html = response.content.decode()
    assert "There is no partition &#x27;nope&#x27;. The configured partitions are: default." \
        in html
    response = viewer_client.get(explain_url("nope"), {"queue": "root.a", "resource": "gpu"})
    assert response.status_code == 404


def test_the_admin_forms(quota_admin_client, active_elastic):
    assert quota_admin_client.post(switch_url("nope"), {"enabled": "on"}).status_code == 404
    assert quota_admin_client.post(total_url("nope"), {"total": "gpu: 1"}).status_code == 404
    assert quota_admin_client.post(total_url("nope"), {"total": "bad"}).status_code == 404

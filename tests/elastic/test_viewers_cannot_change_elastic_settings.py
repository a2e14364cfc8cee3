"""A viewer reads the elastic page but gets none of its controls, and a viewer's POST (even with
a valid CSRF token) is refused with 403 and changes nothing; the forms need the CSRF token."""

from __future__ import annotations

import pytest
from django.test import Client

from quotaweb.elastic.models import ElasticSettings
from quotaweb.engine.gateway import engines_get
from tests.config.pages import posting_forms
from tests.elastic.pages import page_url, switch_url, total_url

pytestmark = pytest.mark.django_db


def test_a_viewer_sees_no_admin_controls(viewer_client, active_elastic):
    html = viewer_client.get(page_url()).content.decode()
    assert posting_forms(html) == []
    assert "Turn elastic quota on" not in html
    assert "Set the cluster total" not in html
    assert "A quota admin sets it on this page" in html


def test_an_admin_sees_both_forms(quota_admin_client, active_elastic):
    html = quota_admin_client.get(page_url()).content.decode()
    actions = " ".join(posting_forms(html))
    assert f'action="{switch_url()}"' in actions
    assert f'action="{total_url()}"' in actions
    assert '<label for="id_total">Cluster total</label>' in html
    assert "reason <code>elasticQuota</code>" in html


@pytest.mark.parametrize(
    ("url", "data"),
    [(switch_url(), {"enabled": "on"}), (total_url(), {"total": "gpu: 100"})],
    ids=["switch", "total"],
)
def test_a_viewers_post_is_refused_and_changes_nothing(viewer_client, active_elastic, url, data):
    response = viewer_client.post(url, data)
    assert response.status_code == 403
    assert "nothing was changed" in response.content.decode()
    state = engines_get().elastic("default")
    assert state.enabled is False
    assert state.total == {}
    assert not ElasticSettings.objects.exists()


def test_a_post_without_the_csrf_token_is_refused(admin, active_elastic):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    assert client.post(switch_url(), {"enabled": "on"}).status_code == 403
    assert client.post(total_url(), {"total": "gpu: 100"}).status_code == 403
    assert engines_get().elastic("default").enabled is False
    assert not ElasticSettings.objects.exists()

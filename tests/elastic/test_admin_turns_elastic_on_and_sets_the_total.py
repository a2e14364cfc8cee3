"""A quota admin turns elastic quota on and off and sets the cluster total from the page (POST,
redirect, GET with a message). A total that does not read is shown on the form, naming the
quantity and why, and changes nothing."""

from __future__ import annotations

import pytest

from quotaweb.elastic.models import ElasticSettings
from quotaweb.engine.gateway import engines_get
from tests.elastic.pages import page_url, switch_url, total_url

pytestmark = pytest.mark.django_db

GiB = 2**30


def test_turning_it_on_and_off(quota_admin_client, admin, active_elastic):
    response = quota_admin_client.post(switch_url(), {"enabled": "on"})
    assert response.status_code == 302
    assert response["Location"] == page_url()
    assert engines_get().elastic("default").enabled is True
    stored = ElasticSettings.objects.get(partition="default")
    assert (stored.enabled, stored.updated_by) == (True, admin)

    html = quota_admin_client.get(page_url()).content.decode()
    assert "Elastic quota is on in partition default" in html
    assert 'data-field="enabled">on<' in html
    assert "Turn elastic quota off" in html
    assert 'name="enabled" value="off"' in html
    assert f"Settings last changed by {admin.username}" in html

    quota_admin_client.post(switch_url(), {"enabled": "off"})
    assert engines_get().elastic("default").enabled is False


def test_setting_the_total_in_quantities(quota_admin_client, active_elastic):
    response = quota_admin_client.post(
        total_url(), {"total": "gpu: 100, memory: 400Gi, vcore: 96"}, follow=True
    )
    assert response.redirect_chain == [(page_url(), 302)]
    state = engines_get().elastic("default")
    assert state.total == {"gpu": 100, "memory": 400 * GiB, "vcore": 96_000}
    html = response.content.decode()
    assert "The cluster total of partition default is now gpu 100, memory 400 GiB, 96 vcore." \
        in html
    # the form shows the total again as quantities that read back to the same values
    assert 'value="gpu: 100, memory: 400Gi, vcore: 96"' in html
    assert ElasticSettings.objects.get(partition="default").cluster_total == state.total


def test_a_bad_quantity_is_named_and_changes_nothing(quota_admin_client, active_elastic):
    quota_admin_client.post(total_url(), {"total": "gpu: 100"})
    response = quota_admin_client.post(total_url(), {"total": "gpu: 50, memory: 400Gx"})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-error-for="total"' in html
    assert "memory: &#x27;400Gx&#x27; is not a quantity (invalid quantity)" in html
    assert engines_get().elastic("default").total == {"gpu": 100}

    response = quota_admin_client.post(total_url(), {"total": "lots"})
    assert response.status_code == 400
    assert "could not read &#x27;lots&#x27;" in response.content.decode()
    assert engines_get().elastic("default").total == {"gpu": 100}


def test_a_bad_switch_value_is_refused(quota_admin_client, active_elastic):
    response = quota_admin_client.post(switch_url(), {"enabled": "maybe"})
    assert response.status_code == 400
    assert "choose on or off" in response.content.decode()
    assert engines_get().elastic("default").enabled is False

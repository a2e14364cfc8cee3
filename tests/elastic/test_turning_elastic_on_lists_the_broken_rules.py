"""Turning elastic quota on over a configuration that breaks the elastic rules is refused on the
page: each rule's error is listed with its code, queue (linked to where it is configured) and
message, and nothing is changed."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.elastic.models import ElasticSettings
from quotaweb.engine.gateway import engines_get
from tests.config.pages import apply
from tests.configs import ELASTIC_YAML
from tests.elastic.pages import switch_url
from trackers.elastic import messages

pytestmark = pytest.mark.django_db

# b's min names memory, which b's max does not (E-S4); d's weight is negative (E-S3)
BROKEN = ELASTIC_YAML.replace(
    "{guaranteed: {gpu: 15}, max: {gpu: 60}}",
    "{guaranteed: {gpu: 15, memory: 1Gi}, max: {gpu: 60}}",
).replace(
    "- name: d\n",
    "- name: d\n            properties: {elastic.shared-weight: \"gpu=-1\"}\n",
)


def test_each_broken_rule_is_listed_and_nothing_changes(quota_admin_client, active_elastic):
    apply(BROKEN)  # accepted while elastic quota is off
    response = quota_admin_client.post(switch_url(), {"enabled": "on"})
    assert response.status_code == 409
    html = response.content.decode()
    assert "elastic quota cannot be turned on for partition &#x27;default&#x27;" in html
    assert f'<li data-rule="{messages.CODE_MIN_KEY}"><code>{messages.CODE_MIN_KEY}</code> at ' \
        f'<a href="{reverse("config:queue", args=["default", "root.b"])}"><code>root.b</code>' \
        in html
    assert f'<li data-rule="{messages.CODE_WEIGHT}"><code>{messages.CODE_WEIGHT}</code>' in html
    assert "root.d quota.Properties[elastic.shared-weight]&#x27;s value &lt; 0" in html
    assert "resourceKey memory of quota root.b is included in min" in html
    assert engines_get().elastic("default").enabled is False
    assert not ElasticSettings.objects.exists()

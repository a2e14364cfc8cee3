"""A queue's usage page links to its configuration, and its configuration page to its usage."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.usage.pages import engines_busy

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["root", "root.eng.ml"])
def test_usage_and_configuration_of_a_queue_link_to_each_other(viewer_client, path):
    engines_busy()
    usage = reverse("usage:queue", args=["default", path])
    config = reverse("config:queue", args=["default", path])
    usage_html = viewer_client.get(usage).content.decode()
    config_html = viewer_client.get(config).content.decode()
    assert f'<a href="{config}" data-config-link>' in usage_html
    assert f'<a href="{usage}" data-usage-link>' in config_html

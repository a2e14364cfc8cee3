"""Rollback from the history: previewed like any change, then applied as a new version whose YAML
is exactly the old one, and the engine takes the old limits."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotaweb.config.models import ConfigVersion
from quotaweb.engine.gateway import engines_get
from tests.config.pages import apply
from tests.configs import SMALL_YAML

pytestmark = pytest.mark.django_db

TIGHTER = SMALL_YAML.replace("memory: 40Gi, vcore: \"20\"", "memory: 16Gi, vcore: \"20\"")
GiB = 2**30


def _alice_headroom() -> int:
    with engines_get().engine("default") as engine:
        return engine.headroom(
            user="alice", groups=[], queue_path="root.eng", app_id="probe"
        )["memory"]


def test_rollback_is_previewed_then_restores_the_yaml_and_the_engine_limits(
    quota_admin_client, admin, active_small
):
    apply(TIGHTER)  # the engines switch with every apply
    assert _alice_headroom() == 16 * GiB
    version_page = quota_admin_client.get(reverse("config:version", args=[1])).content.decode()
    assert "data-rollback" in version_page
    url = reverse("config:rollback", args=[1])
    preview = quota_admin_client.get(url).content.decode()
    assert 'data-kind="limit" data-change="changed" data-queue="root.eng"' in preview
    assert 'name="base_version" value="2"' in preview
    assert ConfigVersion.objects.count() == 2

    response = quota_admin_client.post(url, {"base_version": "2", "comment": "undo"})
    assert response["Location"] == reverse("config:version", args=[3])
    restored = ConfigVersion.objects.get(number=3)
    assert restored.yaml == ConfigVersion.objects.get(number=1).yaml
    assert (restored.author, restored.comment) == (admin, "undo")
    assert _alice_headroom() == 40 * GiB


def test_a_rollback_from_a_stale_page_is_a_conflict(quota_admin_client, active_small):
    apply(TIGHTER)
    response = quota_admin_client.post(
        reverse("config:rollback", args=[1]), {"base_version": "1", "comment": ""}
    )
    assert response.status_code == 409
    assert "version 2 is active now" in response.content.decode()
    assert ConfigVersion.objects.count() == 2


def test_rollback_of_a_missing_version_is_a_404_and_viewers_cannot(
    quota_admin_client, viewer_client, active_small
):
    assert quota_admin_client.get(reverse("config:rollback", args=[9])).status_code == 404
    url = reverse("config:rollback", args=[1])
    assert viewer_client.get(url).status_code == 403
    assert viewer_client.post(url, {"base_version": "1"}).status_code == 403
    assert "data-rollback" not in viewer_client.get(
        reverse("config:version", args=[1])
    ).content.decode()

"""A viewer reads every configuration page and can write nothing: no edit controls are shown,
and every write, even forged with a valid CSRF token, is refused with 403 and changes nothing."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from quotaweb.config.models import ConfigVersion, Draft
from tests.config.pages import posting_forms

pytestmark = pytest.mark.django_db

ML = reverse("config:queue", args=["default", "root.eng.ml"])


@pytest.mark.parametrize(
    "action", ["queue-save", "child-add", "queue-delete", "limit-add", "limit-save",
               "limit-delete", "limit-up", "limit-down"],
)
def test_every_queue_action_is_refused(viewer_client, capped_tree, action):
    response = viewer_client.post(ML, {"action": action, "index": "0", "child-name": "x"})
    assert response.status_code == 403
    assert "Only quota admins can make changes" in response.content.decode()
    assert not Draft.objects.exists()


def test_forged_with_a_valid_csrf_token(viewer, capped_tree):
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)
    page = client.get(ML)
    token = page.cookies["csrftoken"].value
    response = client.post(ML, {"action": "queue-delete", "csrfmiddlewaretoken": token})
    assert response.status_code == 403
    assert ConfigVersion.objects.count() == 1
    assert not Draft.objects.exists()


@pytest.mark.parametrize("name", ["config:tree", "config:versions", "config:yaml"])
def test_pages_show_no_edit_controls(viewer_client, capped_tree, name):
    html = viewer_client.get(reverse(name)).content.decode()
    assert posting_forms(html) == []
    assert "data-read-only" in html


def test_an_admin_without_csrf_token_is_refused_too(admin, capped_tree):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    response = client.post(ML, {"action": "queue-delete"})
    assert response.status_code == 403
    assert not Draft.objects.exists()


def test_an_unknown_page_gets_the_site_404(viewer_client):
    response = viewer_client.get("/no/such/page/")
    assert response.status_code == 404
    assert "There is no page at <code>/no/such/page/</code>" in response.content.decode()

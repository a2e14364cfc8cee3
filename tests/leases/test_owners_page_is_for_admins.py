"""The owners page (``/owners/``): admins find it in the main navigation and read every peer and
every unit's owner, epoch and start there; viewers neither see the link nor open the page (403).
On SQLite it says that one process owns everything."""

from __future__ import annotations

import os

import pytest
from django.urls import reverse

from tests.leases.support import postgres_only

NAV_LINK = f'<a href="{reverse("core:owners")}"'


@pytest.mark.django_db
def test_admins_find_it_in_the_navigation(quota_admin_client, capped_engines):
    assert NAV_LINK in quota_admin_client.get(reverse("core:home")).content.decode()
    page = quota_admin_client.get(reverse("core:owners"))
    assert page.status_code == 200
    assert f'{NAV_LINK} aria-current="page">Owners</a>' in page.content.decode()


@pytest.mark.django_db
def test_viewers_neither_see_it_nor_open_it(viewer_client, capped_engines):
    assert NAV_LINK not in viewer_client.get(reverse("core:home")).content.decode()
    assert viewer_client.get(reverse("core:owners")).status_code == 403


def test_it_needs_a_login(client):
    response = client.get(reverse("core:owners"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:login"))


@pytest.mark.django_db
def test_on_sqlite_one_process_owns_everything(quota_admin_client):
    if os.environ.get("DATABASE_URL"):
        pytest.skip("SQLite only")
    page = quota_admin_client.get(reverse("core:owners")).content.decode()
    assert "data-one-process" in page
    assert "data-peers" not in page


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_it_shows_each_peer_and_each_units_owner(owner, taker, quota_admin_client):
    epochs = taker.survey(["default"]).epochs
    taker.take("default", epoch=epochs["default"])
    taker.renew()

    page = quota_admin_client.get(reverse("core:owners")).content.decode()
    assert '<tr data-peer="p1">' in page
    assert '<tr data-peer="p2">' in page
    assert "<code>p2.example:8000</code>" in page
    default_row = page.split('<tr data-unit="default">')[1].split("</tr>")[0]
    assert "<td>p2</td>" in default_row
    assert "<td>2</td>" in default_row
    trees_row = page.split('<tr data-unit="quota-trees">')[1].split("</tr>")[0]
    assert "<td>p1</td>" in trees_row

"""``GET /api/v1/owners``: the live peers with their partitions, and each unit's owner, epoch
and start; for viewers and above; empty on SQLite, where one process owns everything."""

from __future__ import annotations

import os

import pytest

from tests.leases.support import postgres_only

OWNERS = "/api/v1/owners"


@pytest.mark.django_db
def test_without_peers_nothing_is_leased(viewer_api):
    if os.environ.get("DATABASE_URL"):
        pytest.skip("SQLite only")
    response = viewer_api.get(OWNERS)
    assert response.status_code == 200
    assert response.json() == {"peers": [], "partitions": {}}


def test_it_needs_a_login(client):
    assert client.get(OWNERS).status_code in (401, 403)


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_it_lists_each_peer_and_each_units_owner(owner, taker, viewer_api):
    epochs = taker.survey(["default"]).epochs
    taker.take("default", epoch=epochs["default"])
    taker.renew()

    body = viewer_api.get(OWNERS).json()
    assert [(p["name"], p["address"], p["partitions"]) for p in body["peers"]] == [
        ("p1", "p1.example:8000", ["quota-trees"]),
        ("p2", "p2.example:8000", ["default"]),
    ]
    assert {unit: (lease["owner"], lease["epoch"])
            for unit, lease in body["partitions"].items()} == {
        "default": ("p2", 2), "quota-trees": ("p1", 1),
    }
    assert all(lease["since"] for lease in body["partitions"].values())

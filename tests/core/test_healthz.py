import pytest

pytest.importorskip("trackers")

# /healthz asks the database whether it answers.
pytestmark = pytest.mark.django_db


def test_healthz_is_503_starting_before_engines_exist(client):
    response = client.get("/healthz")

    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "starting", "engine": {}}


def test_healthz_reports_every_partition(client, gateway):
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert list(body["engine"]) == ["default", "gpu"]
    for name in ("default", "gpu"):
        state = body["engine"][name]
        assert set(state) == {"version", "users", "groups"}
        assert state["version"] is None
        assert isinstance(state["users"], int)
        assert isinstance(state["groups"], int)


def test_healthz_counts_named_users_and_groups(client, gateway):
    engine = client.get("/healthz").json()["engine"]

    # Named users in the sample: alice, bob, eve, grace, heidi and the CI service account.
    assert engine["default"]["users"] == 6
    # Named groups ml-researchers, vision-team, oncall, analysts, contractors, auditors, plus the
    # group wildcard, which has a tracker of its own.
    assert engine["default"]["groups"] == 7
    assert engine["gpu"] == {"version": None, "users": 1, "groups": 0}


def test_healthz_shows_the_version_the_gateway_applied(client, gateway, sample_yaml):
    from trackers import parse_config

    with gateway.engine("gpu") as engine:
        engine.apply_config(parse_config(sample_yaml).partition("gpu"), version=7)

    engine = client.get("/healthz").json()["engine"]
    assert engine["gpu"]["version"] == 7
    assert engine["default"]["version"] is None


def test_healthz_names_the_node_and_what_it_serves(client, gateway, settings):
    settings.QUOTAWEB_NODE_NAME = "quota1:8000"
    body = client.get("/healthz").json()

    assert body["node"] == "quota1:8000"
    # One process without leases: every partition it loaded (the trees are not loaded here).
    assert body["owns"] == ["default", "gpu"]


def test_healthz_answers_get_only(client, gateway):
    assert client.post("/healthz").status_code == 405


def test_a_socket_process_whose_redis_is_gone_is_503(client, monkeypatch, settings):
    from quotaweb.core import selectors

    monkeypatch.setattr(selectors, "_sockets_only", True)
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1

    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert (body["status"], body["role"]) == ("unavailable", "sockets")
    assert body["channelLayer"].startswith("Redis did not answer")

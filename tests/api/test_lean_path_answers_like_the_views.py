"""The lean allocation path (``quotaweb.api.lean``) in front of Django: a token caller's allocate,
release, batch and headroom get, byte for byte, the status, headers and body the views give, with
the row committed before the answer; everything else (errors, sessions, viewers' writes, other
content types) is handed to the views untouched."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.api.allocation_support import ALLOCATIONS, GiB, asgi_exchange, body, token_of

pytestmark = pytest.mark.django_db(transaction=True)

HEADROOM = "/api/v1/partitions/default/headroom"
HEADROOM_QUERY = b"queuePath=root.eng&user=alice&applicationId=app-1&groups=ml"


def exchange(app, method: str, path: str, *, token: str | None, data: object = None,
             query: bytes = b"", content_type: bytes = b"application/json") -> tuple:
    """One request through the ASGI ``app`` on an event loop of its own."""
    return asyncio.run(asgi_exchange(app, method, path, token=token, data=data, query=query,
                                     content_type=content_type))


class Recording:
    """An ASGI app standing for Django behind the lean path: records and answers 418."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope, receive, send) -> None:
        self.paths.append(scope["path"])
        await receive()
        await send({"type": "http.response.start", "status": 418, "headers": []})
        await send({"type": "http.response.body", "body": b""})


@pytest.fixture
def apps():
    """(the served application, Django's handler alone)."""
    from quotaweb.asgi import application, django_asgi_app

    return application, django_asgi_app


@pytest.fixture
def lean_only():
    """The lean path in front of a ``Recording`` instead of Django."""
    from quotaweb.api.lean import LeanAllocations
    from quotaweb.asgi import django_asgi_app

    behind = Recording()
    return LeanAllocations(behind, executor=django_asgi_app.pool), behind


def test_allocate_replay_denial_and_release_answer_exactly_as_the_views(
    apps, admin, capped_engines
):
    served, django = apps
    token = token_of(admin)
    steps = [
        ("POST", ALLOCATIONS, body("k1", memory=8 * GiB), b""),  # 201
        ("POST", ALLOCATIONS, body("k1", memory=8 * GiB), b""),  # 200, a replay
        ("POST", ALLOCATIONS, body("k2", memory=4 * GiB), b""),  # 409, userQuota
        ("GET", HEADROOM, None, HEADROOM_QUERY),
        ("DELETE", f"{ALLOCATIONS}/k1", None, b""),  # 204
    ]
    lean = [exchange(served, m, p, token=token, data=d, query=q) for m, p, d, q in steps]
    exchange(served, "DELETE", f"{ALLOCATIONS}/k1", token=token)
    views = [exchange(django, m, p, token=token, data=d, query=q) for m, p, d, q in steps]
    assert [answer[0] for answer in lean] == [201, 200, 409, 200, 204]
    assert lean == views


def test_a_batch_answers_exactly_as_the_view(apps, admin, capped_engines):
    served, django = apps
    token = token_of(admin)
    operations = {"operations": [
        {"op": "allocate", **body("b1")}, {"op": "release", "allocationKey": "missing"},
        {"op": "allocate", **body("b2", memory=20 * GiB)}, {"op": "bogus"},
    ]}
    lean = exchange(served, "POST", f"{ALLOCATIONS}/batch", token=token, data=operations)
    exchange(served, "DELETE", f"{ALLOCATIONS}/b1", token=token)
    views = exchange(django, "POST", f"{ALLOCATIONS}/batch", token=token, data=operations)
    statuses = [result["status"] for result in json.loads(lean[2])["results"]]
    assert statuses == [201, 404, 409, 400]
    assert lean == views


def test_an_acknowledged_allocation_is_already_committed(apps, admin, capped_engines):
    from quotaweb.allocations.models import Allocation

    served, _ = apps
    status, _, _ = exchange(served, "POST", ALLOCATIONS, token=token_of(admin), data=body("k1"))
    assert status == 201
    assert list(Allocation.objects.values_list("key", "resource")) == [("k1", {"memory": GiB})]


def test_the_lean_path_answers_a_token_callers_hot_path_itself(lean_only, admin, capped_engines):
    lean, behind = lean_only
    token = token_of(admin)
    assert exchange(lean, "POST", ALLOCATIONS, token=token, data=body("k1"))[0] == 201
    assert exchange(lean, "GET", HEADROOM, token=token, query=HEADROOM_QUERY)[0] == 200
    assert exchange(lean, "DELETE", f"{ALLOCATIONS}/k1", token=token)[0] == 204
    assert behind.paths == []


JSON = b"application/json"


# (method, path, whose token, body, query, content type)
@pytest.mark.parametrize(("method", "path", "who", "data", "query", "content_type"), [
    pytest.param("POST", ALLOCATIONS, None, body("k1"), b"", JSON, id="no token"),
    pytest.param("POST", ALLOCATIONS, "unknown", body("k1"), b"", JSON, id="unknown token"),
    pytest.param("POST", ALLOCATIONS, "viewer", body("k1"), b"", JSON, id="viewer writes"),
    pytest.param("POST", ALLOCATIONS, "admin", {"user": 3}, b"", JSON, id="bad body"),
    pytest.param("POST", ALLOCATIONS, "admin", b"{nope", b"", JSON, id="not JSON"),
    pytest.param("POST", "/api/v1/partitions/nope/allocations", "admin", body("k1"), b"", JSON,
                 id="unknown partition"),
    pytest.param("DELETE", f"{ALLOCATIONS}/nope", "admin", None, b"", JSON, id="unknown key"),
    pytest.param("POST", ALLOCATIONS, "admin", b"a=b", b"",
                 b"application/x-www-form-urlencoded", id="form body"),
    pytest.param("GET", HEADROOM, "admin", None, b"queuePath=root.eng&applicationId=a", JSON,
                 id="headroom without user"),
])
def test_everything_else_goes_to_the_views_with_its_body(
    method, path, who, data, query, content_type, lean_only, admin, viewer, capped_engines
):
    lean, behind = lean_only
    token = {None: None, "unknown": "0" * 40, "viewer": token_of(viewer), "admin": token_of(admin)}
    status, _, _ = exchange(lean, method, path, token=token[who], data=data, query=query,
                            content_type=content_type)
    assert status == 418
    assert behind.paths == [path]


def test_a_handed_over_request_still_gets_the_views_error(apps, admin, capped_engines):
    served, django = apps
    token = token_of(admin)
    lean = exchange(served, "POST", ALLOCATIONS, token=token, data={"user": 3})
    views = exchange(django, "POST", ALLOCATIONS, token=token, data={"user": 3})
    assert lean[0] == 400
    assert lean == views


def test_a_failed_ledger_write_is_answered_500_once_and_changes_nothing(
    apps, admin, capped_engines, monkeypatch
):
    from quotaweb.allocations import services

    served, django = apps
    token = token_of(admin)
    attempts = []

    def broken(partition):
        def write(stored, deleted):
            attempts.append(partition)
            raise RuntimeError("database went away")
        return write

    monkeypatch.setattr(services, "_ledger_write", broken)
    lean = exchange(served, "POST", ALLOCATIONS, token=token, data=body("a"))
    assert attempts == ["default"]
    views = exchange(django, "POST", ALLOCATIONS, token=token, data=body("a"))
    assert lean[0] == 500
    assert lean == views
    assert capped_engines.live_count("default") == 0


def _with(key: str, **fields) -> dict:
    sent = body(key)
    for name, value in fields.items():
        if value is None:
            sent.pop(name)
        else:
            sent[name] = value
    return sent


def _usage():
    from quotaweb.engine.gateway import engines_get

    gateway = engines_get()
    return gateway.users_usage("default"), gateway.groups_usage("default")


# A refused request on both paths: (path, body, status, what the answer must name).
REFUSED = [
    pytest.param(ALLOCATIONS, _with("k1", groups=None, grups=["ml"]), 400, "grups",
                 id="unknown key"),
    pytest.param(ALLOCATIONS, _with("k1", groups=["g g"]), 400, "'g g'", id="group with a space"),
    pytest.param(ALLOCATIONS, _with("k1", groups=["ml", "*"]), 400, "'*'", id="group wildcard"),
    pytest.param(f"{ALLOCATIONS}/batch", {"operations": [
        {"op": "allocate", **_with("k1", groups=None, grups=["ml"])},
    ]}, 200, "operations[0].grups", id="batch unknown key"),
    pytest.param(f"{ALLOCATIONS}/batch", {"operations": [
        {"op": "release", "allocationKey": "k1", "user": "alice"},
    ]}, 200, "operations[0].user", id="batch release unknown key"),
    pytest.param(f"{ALLOCATIONS}/batch", {"operations": [
        {"op": "allocate", **_with("k1", groups=["*"])},
    ]}, 200, "'*'", id="batch group wildcard"),
    pytest.param(f"{ALLOCATIONS}/batch", {"operations": [{"op": "allocate", **_with("k1")}],
                                          "atomic": True}, 400, "atomic",
                 id="batch body unknown key"),
]


@pytest.mark.parametrize(("path", "data", "status", "named"), REFUSED)
def test_a_refused_body_answers_as_the_views_naming_what_and_changes_nothing(
    path, data, status, named, apps, admin, capped_engines
):
    from tests.api.allocation_support import ledger

    served, django = apps
    token = token_of(admin)
    before = _usage()
    lean = exchange(served, "POST", path, token=token, data=data)
    views = exchange(django, "POST", path, token=token, data=data)
    assert lean == views
    assert lean[0] == status
    answer = json.loads(lean[2])
    refused = answer["results"][0] if status == 200 else answer
    assert refused["status" if status == 200 else "error"] in (400, "bad_request")
    assert named in json.dumps(refused["details"] or refused["message"])
    assert (_usage(), ledger(), capped_engines.live_count("default")) == (before, {}, 0)


def test_usage_past_64_bits_is_denied_naming_the_resource_on_both_paths(
    apps, admin, capped_engines
):
    from tests.api.allocation_support import ledger
    from trackers.resources import INT64_MAX

    served, django = apps
    token = token_of(admin)
    largest = {"gpu": INT64_MAX}
    answers = {}
    for name, app in (("lean", served), ("views", django)):
        first = exchange(app, "POST", ALLOCATIONS, token=token,
                         data=_with("k1", resource=largest))
        before = (_usage(), ledger())
        single = exchange(app, "POST", ALLOCATIONS, token=token,
                          data=_with("k2", user="bob", resource=largest))
        batch = exchange(app, "POST", f"{ALLOCATIONS}/batch", token=token, data={"operations": [
            {"op": "allocate", **_with("k3", resource={"gpu": 1})},
        ]})
        assert (_usage(), ledger()) == before
        exchange(app, "DELETE", f"{ALLOCATIONS}/k1", token=token)
        answers[name] = (first, single, batch)
    assert answers["lean"] == answers["views"]
    first, single, batch = answers["lean"]
    assert (first[0], single[0], batch[0]) == (201, 409, 200)
    denied = json.loads(single[2])
    assert (denied["error"], denied["reason"]) == ("denied", "resourceOverflow")
    assert denied["message"].startswith("resource gpu would sum to")
    result = json.loads(batch[2])["results"][0]
    assert (result["status"], result["reason"]) == (409, "resourceOverflow")


@pytest.mark.parametrize(("who", "status"), [("unknown", 401), ("inactive", 401),
                                             ("viewer", 403)])
def test_a_refused_token_is_answered_before_its_body_is_read(
    who, status, apps, admin, viewer, capped_engines
):
    served, django = apps
    if who == "inactive":
        token = token_of(admin)
        type(admin).objects.filter(pk=admin.pk).update(is_active=False)
    else:
        token = "0" * 40 if who == "unknown" else token_of(viewer)
    large = json.dumps(body("k1")).encode() + b" " * 1_000_000
    log: list = []
    lean = asyncio.run(asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=large,
                                     chunks=8, log=log))
    views = asyncio.run(asgi_exchange(django, "POST", ALLOCATIONS, token=token, data=large,
                                      chunks=8))
    assert lean == views
    assert lean[0] == status
    assert log[0] == ("answer", status), log
    assert capped_engines.live_count("default") == 0


def test_an_admin_token_still_reads_a_body_in_pieces(apps, admin, capped_engines):
    served, _ = apps
    log: list = []
    answer = asyncio.run(asgi_exchange(served, "POST", ALLOCATIONS, token=token_of(admin),
                                       data=body("k1"), chunks=3, log=log))
    assert answer[0] == 201
    assert log == ["body", "body", "body", ("answer", 201)]

"""Shared pieces of the allocation API tests: request bodies, a few readers, and an allocation
straight on an engine. Their config (``CAPPED_YAML``, the ``capped_engines`` fixture) lives in
``tests/configs.py``."""

from __future__ import annotations

GiB = 2**30

ALLOCATIONS = "/api/v1/partitions/default/allocations"


def body(key: str, *, user: str = "alice", app: str = "app-1", memory: int = GiB,
         groups: list[str] | None = None, queue: str = "root.eng") -> dict:
    return {
        "allocationKey": key, "applicationId": app, "queuePath": queue, "user": user,
        "groups": ["ml"] if groups is None else groups, "resource": {"memory": memory},
    }


def used(user: str, path: str = "root.eng") -> dict:
    from quotaweb.engine.gateway import engines_get

    node = engines_get().user_usage("default", user)
    if node is None:
        return {}
    stack = [node["queues"]]
    while stack:
        current = stack.pop()
        if current["queuePath"] == path:
            return current.get("resourceUsage", {})
        stack.extend(current.get("children", ()))
    return {}


def allocate(gateway, *, queue: str, app: str, user: str, groups=(), partition="default",
             **resource: int) -> None:
    """An increase on ``gateway``'s engine that must be allowed (test set-up, no ledger)."""
    with gateway.engine(partition) as engine:
        decision = engine.increase(queue, app, user, list(groups), dict(resource))
    assert decision.allowed, decision.message


def ledger() -> dict[str, dict]:
    from quotaweb.allocations.models import Allocation

    return {row.key: row.resource for row in Allocation.objects.all()}


# -- usage of a real server process, against what its clients were acknowledged -------------------


def usage_expected(bodies) -> tuple[dict, dict]:
    """Memory per user and queue path, and per queue, that the live allocation ``bodies`` (as
    sent to the API) add up to."""
    from collections import defaultdict

    users: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    queues: dict[str, int] = defaultdict(int)
    for sent in bodies:
        memory = sent["resource"]["memory"]
        segments = sent["queuePath"].split(".")
        for depth in range(1, len(segments) + 1):
            path = ".".join(segments[:depth])
            users[sent["user"]][path] += memory
            queues[path] += memory
    return {u: dict(p) for u, p in users.items()}, dict(queues)


def _memory_by(node: dict, key: str, value: str, out: dict) -> None:
    usage = node.get(value, {}).get("memory", 0)
    if usage:
        out[node[key]] = usage
    for child in node.get("children", []):
        _memory_by(child, key, value, out)


def usage_served(server, token: str, partition: str = "default") -> tuple[dict, dict]:
    """What ``usage_expected`` computes, as a server process's engines report it."""
    status, users = server.request("GET", f"/ws/v1/partition/{partition}/usage/users",
                                   token=token)
    assert status == 200
    by_user = {}
    for user in users:
        paths: dict[str, int] = {}
        _memory_by(user["queues"], "queuePath", "resourceUsage", paths)
        if paths:
            by_user[user["userName"]] = paths
    status, tree = server.request("GET", f"/ws/v1/partition/{partition}/queues", token=token)
    assert status == 200
    queues: dict[str, int] = {}
    _memory_by(tree, "queuename", "allocatedResource", queues)
    return by_user, queues


async def asgi_exchange(app, method: str, path: str, *, token: str | None, data: object = None,
                        query: bytes = b"", content_type: bytes = b"application/json",
                        chunks: int = 1, log: list | None = None,
                        headers: tuple[tuple[bytes, bytes], ...] = ()) -> tuple:
    """One request through the ASGI ``app``: (status, headers by name, body). The body comes in
    ``chunks`` messages; ``log`` gets ``"body"`` for each one the app takes and ``("answer",
    status)`` when it starts answering, in the order they happen; ``headers`` are sent besides
    the usual ones."""
    import asyncio
    import json

    raw = data if isinstance(data, bytes) else (b"" if data is None else json.dumps(data).encode())
    sent_headers = [(b"host", b"127.0.0.1"), (b"content-type", content_type),
                    (b"content-length", str(len(raw)).encode()), *headers]
    if token is not None:
        sent_headers.append((b"authorization", f"Token {token}".encode()))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query,
        "root_path": "", "headers": sent_headers, "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    size = -(-len(raw) // chunks) or 1
    pending = [{"type": "http.request", "body": raw[at:at + size], "more_body": True}
               for at in range(0, max(len(raw), 1), size)]
    pending[-1]["more_body"] = False
    sent: list[dict] = []
    log = [] if log is None else log

    async def receive() -> dict:
        if pending:
            log.append("body")
            return pending.pop(0)
        await asyncio.sleep(60)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            log.append(("answer", message["status"]))
        sent.append(message)

    await app(scope, receive, send)
    return (sent[0]["status"], dict(sorted((k.lower(), v) for k, v in sent[0]["headers"])),
            b"".join(message.get("body", b"") for message in sent[1:]))


def token_of(user) -> str:
    """``user``'s API token, made on first use."""
    from rest_framework.authtoken.models import Token

    return Token.objects.get_or_create(user=user)[0].key


async def remember_token(served, token: str) -> None:
    """A first allocate and its release through ``served``, in threads: the token's admin is
    remembered after, so the lean path may answer on its event loop."""
    await asgi_exchange(served, "POST", ALLOCATIONS, token=token, data=body("first"))
    await asgi_exchange(served, "DELETE", f"{ALLOCATIONS}/first", token=token)

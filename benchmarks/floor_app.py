"""The floor ``benchmarks/api.py`` compares the allocation API with: an ASGI app that reads the
request body and answers a small JSON body, doing nothing else, served by the same server."""

from __future__ import annotations

ANSWER = b'{"allowed":true,"allocationKey":"k","group":null}'


async def application(scope, receive, send) -> None:
    if scope["type"] != "http":
        return
    message = await receive()
    while message.get("more_body"):
        message = await receive()
    await send({
        "type": "http.response.start", "status": 201,
        "headers": [(b"content-type", b"application/json"),
                    (b"content-length", str(len(ANSWER)).encode())],
    })
    await send({"type": "http.response.body", "body": ANSWER})

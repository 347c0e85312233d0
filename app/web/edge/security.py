"""Small ASGI middlewares at the edge: security headers on every response, request body
limits (per request, and over all requests in flight), body progress (`BodyWatch`), and HEAD
answered as GET.

The body limit is enforced while the body streams in (Content-Length is checked first,
then the bytes actually received), so an oversized request is refused with a 413 in the
one error shape before any parsing or tokenizing happens. Before answering, the rest of
the body is read and thrown away (up to `DRAIN_BYTES`): a client that sends its whole body
before reading (Python's urllib) otherwise gets a connection reset instead of the 413.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType

from starlette.requests import ClientDisconnect

from app.errors import TokenprismError
from app.web.pool import ClientGone

log = logging.getLogger("tokenprism")

DRAIN_BYTES = 64 * 1024 * 1024  # most bytes of an oversized body read and dropped before the 413
UPLOAD_FORM_SLACK = 64 * 1024  # an upload's form fields and multipart framing, beyond the file itself

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # no-referrer would make our own form posts send "Origin: null"
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """The security headers, and `Server-Timing: app;dur=<ms>` (the time from the request's
    arrival to its response head, queueing for a worker included) for browsers' devtools
    and the benches."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in SECURITY_HEADERS if name not in names]
                timing = (b"server-timing", b"app;dur=%.2f" % ((time.perf_counter() - started) * 1000))
                message["headers"] = [*message.get("headers", []), *extra, timing]
            await send(message)

        await self.app(scope, receive, send_with_headers)


@dataclass(frozen=True)
class LargeBody:
    """POSTs to `path` may carry `max_bytes` (plus UPLOAD_FORM_SLACK for the form's other fields
    and framing) instead of the general limit; larger is a 413 with `code` and `message`."""

    path: str
    max_bytes: int
    code: str
    message: str


class BodyLimit:
    """At most `max_bytes` per request body (413), or a route's own bound (`LargeBody`: uploads,
    training corpora), and at most `max_inflight` body bytes held by all requests of this
    process together (503 `server_busy`): without the second bound, many concurrent large
    bodies could hold any amount of memory before a worker is free."""

    def __init__(self, app, max_bytes: int, max_inflight: int, uploads: Iterable[LargeBody] = ()):
        self.app = app
        self.max_bytes = max_bytes
        self.max_inflight = max_inflight
        self.large = {entry.path: entry for entry in uploads}  # POSTs to these paths may be larger
        self.inflight = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        large = self.large.get(scope["path"]) if scope["method"] == "POST" else None
        max_bytes = large.max_bytes + UPLOAD_FORM_SLACK if large else self.max_bytes
        declared = dict(scope.get("headers", [])).get(b"content-length")
        declared = int(declared) if declared is not None and declared.isdigit() else None
        if declared is not None and declared > max_bytes:
            if declared <= DRAIN_BYTES:
                await drain(receive)
            return await self._refuse(send, large)
        held = declared or 0
        if held and self.inflight + held > self.max_inflight:
            await drain(receive)
            return await self._busy(send)
        self.inflight += held
        received = 0
        refusal = None  # the answer that replaces the app's: _refuse (too large) or _busy

        async def counting_receive():
            nonlocal received, held, refusal
            if refusal:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > held:  # no or a wrong Content-Length: count what really arrives
                    self.inflight += received - held
                    held = received
                if received > max_bytes or self.inflight > self.max_inflight:
                    # End the body here; whatever the app answers is replaced by the refusal.
                    refusal = (lambda send: self._refuse(send, large)) if received > max_bytes else self._busy
                    if message.get("more_body"):
                        await drain(receive, received)
                    return {"type": "http.request", "body": b"", "more_body": False}
            return message

        async def replacing_send(message):
            if not refusal:
                await send(message)
            elif message["type"] == "http.response.start":
                await refusal(send)

        try:
            await self.app(scope, counting_receive, replacing_send)
        finally:
            self.inflight -= held

    async def _refuse(self, send, large: LargeBody | None = None):
        if large:
            await send_error(send, 413, large.code, large.message)
        else:
            await send_error(
                send, 413, "body_too_large", f"request body is over {self.max_bytes:,} bytes; send a smaller text"
            )

    async def _busy(self, send):
        await send_error(
            send,
            503,
            "server_busy",
            f"the server holds {self.max_inflight:,} bytes of request bodies already; try again in a few seconds",
            [(b"retry-after", b"2")],
        )


async def drain(receive, received: int = 0) -> None:
    """Read and drop the rest of a body being refused (up to DRAIN_BYTES), so that a client
    sending it all before reading gets the answer rather than a connection reset."""
    while received <= DRAIN_BYTES:
        message = await receive()
        if message["type"] != "http.request":
            return
        received += len(message.get("body", b""))
        if not message.get("more_body"):
            return


async def send_error(send, status: int, code: str, message: str, headers: list | None = None) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyTimeout(TokenprismError):
    code = "body_timeout"
    status = 408
    headers = MappingProxyType({"Connection": "close"})


class BodyWatch:
    """Each part of a request body must arrive within `timeout_s` of the last one (or of the
    app asking for it): otherwise the read raises `BodyTimeout`, the answer is a 408
    `body_timeout` and the connection is closed. A client that closes the connection before its
    body is whole is one log line (the read raises `ClientGone`), not a traceback. Reads after
    the body is whole, and requests without a body, pass untouched. A body that keeps trickling
    in, a byte within each `timeout_s`, is bounded only by the body limits."""

    def __init__(self, app, timeout_s: float):
        self.app = app
        self.timeout_s = timeout_s

    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers", ())) if scope["type"] == "http" else {}
        if headers.get(b"content-length", b"0") == b"0" and b"transfer-encoding" not in headers:
            return await self.app(scope, receive, send)
        whole = timed_out = started = replaced = False

        async def watched_receive():
            nonlocal whole, timed_out
            if whole:
                return await receive()
            try:
                async with asyncio.timeout(self.timeout_s):
                    message = await receive()
            except TimeoutError:
                timed_out = True
                raise BodyTimeout(self._late()) from None
            if message["type"] == "http.disconnect":
                self._gone(scope)
                raise ClientGone("the client closed the connection while sending its body")
            whole = not message.get("more_body")
            return message

        async def watched_send(message):
            nonlocal started, replaced
            if message["type"] == "http.response.start":
                started = True
                if timed_out and message["status"] != 408:  # whatever else the app made of the failed read
                    replaced = True
                    return await send_error(send, 408, BodyTimeout.code, self._late(), [(b"connection", b"close")])
            if not replaced:
                await send(message)

        try:
            await self.app(scope, watched_receive, watched_send)
        except (BodyTimeout, ClientGone):  # raised where no handler of the app's answers it (a drain)
            if timed_out and not started:
                await send_error(send, 408, BodyTimeout.code, self._late(), [(b"connection", b"close")])
        except ClientDisconnect:
            self._gone(scope)

    def _late(self) -> str:
        return (
            f"no part of the request body arrived for {self.timeout_s:g} s (TOKENPRISM_BODY_TIMEOUT_S); "
            "send the whole body at once"
        )

    @staticmethod
    def _gone(scope) -> None:
        log.warning("client closed the connection while sending its body (%s %s)", scope["method"], scope["path"])


class HeadAsGet:
    """HEAD runs the GET route and sends its status and headers (Content-Length included), no body."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "HEAD":
            return await self.app(scope, receive, send)

        async def send_head(message):
            if message["type"] == "http.response.body":
                if not message.get("more_body"):
                    await send({"type": "http.response.body", "body": b""})
                return
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_head)

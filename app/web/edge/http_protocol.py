"""uvicorn's httptools protocol with bounded request heads, answering in the one error shape.

httptools (llhttp) parses HTTP about twice as fast as h11, but uvicorn's protocol on it
keeps any header block a client sends (a 10 MB header is read whole) and answers a bad
request head with a plain-text 400 that carries none of our headers. This subclass
refuses a URL over `MAX_URL_BYTES` (414) or a header block over `MAX_HEADER_BYTES` (431)
as the bytes arrive, and answers every malformed head with `{"error": {"code", "message"}}`
and the security headers, then closes the connection (after reading and dropping, for a
bounded time, what the client was still sending, so that it gets to read the answer). `tokenprism serve` and the test
server use it (`http=BoundedHttpToolsProtocol`).

A request head must also arrive whole within `header_timeout_s` (TOKENPRISM_HEADER_TIMEOUT_S),
counted from the connection's opening or, on a kept-alive connection, from the head's first
byte; past it the answer is a 408 `header_timeout`. A new connection that sends nothing at all
is closed without an answer, as an idle kept-alive one is (uvicorn's `timeout_keep_alive`,
which `tokenprism serve` sets from TOKENPRISM_KEEPALIVE_TIMEOUT_S). Bodies are timed in the
ASGI layer (security.BodyWatch), where the app waiting for them can be answered.
"""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.settings import get_settings
from app.web.edge.security import SECURITY_HEADERS

MAX_URL_BYTES = 64 * 1024
MAX_HEADER_BYTES = 64 * 1024
LINGER_BYTES = 64 * 1024 * 1024  # after a refusal, read and drop this much of what the client still sends
LINGER_S = 5.0  # ... for at most this long, then close
_REASONS = {400: b"Bad Request", 408: b"Request Timeout", 414: b"URI Too Long", 431: b"Request Header Fields Too Large"}


class HeadRefused(Exception):
    """A request head refused as it arrives (too large, too slow, malformed): what to answer."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    _lingering = False
    _dropped = 0
    _head_timer: asyncio.TimerHandle | None = None
    _head_begun = False  # a byte of a request head arrived since the timer was armed

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.header_timeout_s = get_settings().header_timeout_s

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def _arm_head_timer(self) -> None:
        self._head_timer = self.loop.call_later(self.header_timeout_s, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self._lingering:
            return
        answering = self.cycle is not None and not self.cycle.response_complete  # a pipelined head behind it
        if not self._head_begun or answering:
            self.transport.close()
            return
        self._answer(
            HeadRefused(
                408,
                "header_timeout",
                f"the request headers did not all arrive within {self.header_timeout_s:g} s "
                "(TOKENPRISM_HEADER_TIMEOUT_S); send the whole request head at once",
            )
        )

    def data_received(self, data: bytes) -> None:
        if self._lingering:  # the answer is sent; the rest of the request is read and dropped
            self._dropped += len(data)
            if self._dropped > LINGER_BYTES:
                self.transport.close()
            return
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        self._refusal: HeadRefused | None = None
        self._head_begun = True
        if self._head_timer is None:  # a kept-alive connection's next request: its own time starts now
            self._arm_head_timer()

    def on_headers_complete(self) -> None:
        self._cancel_head_timer()
        self._head_begun = False
        super().on_headers_complete()

    def on_url(self, url: bytes) -> None:
        if len(self.url) + len(url) > MAX_URL_BYTES:
            self._refusal = HeadRefused(
                414,
                "url_too_long",
                f"the address is over {MAX_URL_BYTES:,} bytes; send long texts in a POST body "
                "(the page's form does, and so does POST /api/tokenize)",
            )
            raise self._refusal
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_bytes += len(name) + len(value)
        if self._head_bytes > MAX_HEADER_BYTES:
            self._refusal = HeadRefused(
                431,
                "headers_too_large",
                f"the request headers are over {MAX_HEADER_BYTES:,} bytes; send smaller headers",
            )
            raise self._refusal
        super().on_header(name, value)

    def send_400_response(self, msg: str) -> None:  # uvicorn's call for a head the parser refused
        self._answer(
            getattr(self, "_refusal", None)
            or HeadRefused(
                400, "bad_http_request", "the request is not valid HTTP/1.1; check the request line and headers"
            )
        )

    def _answer(self, refusal: HeadRefused) -> None:
        """The one writer of this layer's answers (400, 408, 414, 431); the connection then closes."""
        self._cancel_head_timer()
        body = json.dumps({"error": {"code": refusal.code, "message": refusal.message}}).encode()
        head = [b"HTTP/1.1 %d %s\r\n" % (refusal.status, _REASONS[refusal.status])]
        head += [name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers]
        head += [name + b": " + value + b"\r\n" for name, value in SECURITY_HEADERS]
        head += [
            b"content-type: application/json\r\n",
            b"content-length: %d\r\n" % len(body),
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join(head) + body)
        # Closing now, with the client still sending, would reset the connection and could
        # destroy the answer before the client reads it: close our side, linger, then close.
        self._lingering = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_S, self.transport.close)

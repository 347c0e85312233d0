"""Slow and vanishing clients over raw sockets against a real server with short timeouts: a
trickled request head or a missing body gets a 408 in the one error shape and the connection
is closed; an idle kept-alive connection is closed; a client that hangs up mid-body is one
log line, never a traceback."""

from __future__ import annotations

import json
import socket
import time

import pytest

from app.local_server import server_log, start_server, stop_server

pytestmark = pytest.mark.serial  # times the server's answers: run alone, not beside another test worker
TIMEOUTS = {"TOKENPRISM_HEADER_TIMEOUT_S": "1", "TOKENPRISM_BODY_TIMEOUT_S": "1", "TOKENPRISM_KEEPALIVE_TIMEOUT_S": "1"}
WAIT_S = 15  # far beyond the 1 s timeouts: the longest any of these waits for the server
IDLE_WAIT_S = 4  # an idle kept-alive connection closes within this: the 1 s setting, not uvicorn's 5 s default


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process, base_url = start_server(tmp_path_factory.mktemp("slow"), TIMEOUTS)
    yield process, base_url.rsplit(":", 1)[1]
    stop_server(process)


def connect(server) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", int(server[1])), timeout=WAIT_S)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection (a socket timeout fails the test)."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def answer(raw: bytes) -> tuple[int, dict, dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, json.loads(body)


def test_a_trickled_head_gets_408_and_the_connection_closes(server):
    with connect(server) as sock:
        sock.sendall(b"POST /api/tokenize HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        time.sleep(0.5)
        sock.sendall(b"Content-Type: application/json\r\n")  # still coming, but not the whole head in time
        status, headers, body = answer(read_all(sock))
    assert status == 408 and body["error"]["code"] == "header_timeout"
    assert "TOKENPRISM_HEADER_TIMEOUT_S" in body["error"]["message"]
    assert headers["connection"] == "close" and "content-security-policy" in headers


def test_a_connection_that_sends_nothing_is_closed(server):
    with connect(server) as sock:
        assert read_all(sock) == b""


def test_a_declared_body_that_never_comes_gets_408(server):
    for declared, sent in ((1_000_000, b""), (1_000, b'{"tokenizer": "gpt2", "te')):
        with connect(server) as sock:
            sock.sendall(
                b"POST /api/tokenize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % declared + sent
            )
            status, headers, body = answer(read_all(sock))
        assert status == 408 and body["error"]["code"] == "body_timeout", (declared, body)
        assert "send the whole body at once" in body["error"]["message"]
        assert headers["connection"] == "close"


def test_a_page_form_whose_body_stops_gets_408_too(server):
    with connect(server) as sock:
        sock.sendall(
            b"POST /share HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: 500\r\n\r\npage=playground&text=half"
        )
        raw = read_all(sock)
    assert raw.startswith(b"HTTP/1.1 408 ") and b"body_timeout" in raw


def test_keep_alive_serves_several_requests_then_an_idle_connection_closes(server):
    with connect(server) as sock:
        for _ in range(2):
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            raw = b""
            while not raw.endswith(b'{"status":"ok"}'):
                raw += sock.recv(65536)
            assert raw.startswith(b"HTTP/1.1 200 ") and b"connection: close" not in raw.lower()
        sock.settimeout(IDLE_WAIT_S)  # uvicorn's own default would keep it 5 s
        assert read_all(sock) == b""  # closed after the keep-alive timeout, without an answer


def test_a_client_that_hangs_up_mid_body_is_one_log_line(server):
    process, _ = server
    with connect(server) as sock:
        sock.sendall(
            b"POST /api/tokenize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000\r\n\r\n" + b"x" * 50_000
        )
        time.sleep(0.3)
    line = "client closed the connection while sending its body (POST /api/tokenize)"
    deadline = time.monotonic() + WAIT_S
    while line not in server_log(process) and time.monotonic() < deadline:
        time.sleep(0.1)
    log = server_log(process)
    assert log.count(line) == 1, log
    assert "Traceback" not in log, log

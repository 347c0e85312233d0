"""The Host check: a request must name this server in its Host header, so DNS rebinding
(a page on evil.example whose name now points at 127.0.0.1) cannot reach a local server.

`HostRule` is built once from the settings: `allowed_hosts` (comma-separated; `name`
matches any port, `name:port` that port only, `[::1]:8000` for IPv6, `*` anything) or,
when it is empty, the loopback names (localhost, 127.0.0.1, ::1) and `bind_host`, the
address `tokenprism serve --host` listens on. Bound to every address (0.0.0.0, ::), the
default also takes this machine's host name and any IP address: a Host that is an
address was not looked up by name, so no DNS answer can have rebound it. `HostCheck` is
the ASGI middleware; a request for another Host is a 400 `host_not_allowed` in the one
error shape, naming the Host and the setting. A request without a Host header (HTTP/1.0,
never a browser) passes.

Left out: which Origin may write (write_access.check_write_access does that).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

from starlette.requests import Request

from app.errors import excerpt
from app.settings import Settings
from app.web.edge.errors import error_response

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")


def split_host(value: str) -> tuple[str, str | None]:
    """'Example.COM:8000' -> ('example.com', '8000'); '[::1]:80' -> ('::1', '80'); '::1' -> ('::1', None)."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        return name, rest[1:] if rest.startswith(":") and rest[1:] else None
    if value.count(":") == 1:
        name, _, port = value.partition(":")
        return name.rstrip("."), port or None
    return value.rstrip("."), None  # a bare name, or a bare IPv6 address


def is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class HostRule:
    entries: frozenset[tuple[str, str | None]]  # (name, port or None for any port)
    any_host: bool = False
    any_address: bool = False  # bound to every address: an IP-address Host is this machine's

    @classmethod
    def from_settings(cls, settings: Settings) -> HostRule:
        given = [part.strip() for part in settings.allowed_hosts.split(",") if part.strip()]
        if given:
            return cls(frozenset(split_host(part) for part in given if part != "*"), any_host="*" in given)
        names = [*LOOPBACK_NAMES, split_host(settings.bind_host)[0]] if settings.bind_host else [*LOOPBACK_NAMES]
        wildcard = bool(settings.bind_host) and settings.bind_host.strip("[]") in WILDCARD_ADDRESSES
        if wildcard:
            names.append(socket.gethostname().lower())
        return cls(frozenset((name, None) for name in names if name not in WILDCARD_ADDRESSES), any_address=wildcard)

    def allows(self, host: str) -> bool:
        if self.any_host:
            return True
        name, port = split_host(host)
        if (name, None) in self.entries or (name, port) in self.entries:
            return True
        return self.any_address and is_ip_address(name)


class HostCheck:
    """Refuse (400) a request whose Host header `rule` does not allow."""

    def __init__(self, app, rule: HostRule):
        self.app = app
        self.rule = rule

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        host = next((value for name, value in scope.get("headers", []) if name == b"host"), None)
        if host is None or self.rule.allows(host.decode("latin-1")):
            return await self.app(scope, receive, send)
        shown = excerpt(host.decode("latin-1"))
        response = error_response(
            Request(scope),
            400,
            "host_not_allowed",
            f"this server does not answer for Host {shown}; open it by an allowed name (localhost, 127.0.0.1), "
            "or add the name to TOKENPRISM_ALLOWED_HOSTS (comma-separated, e.g. 'tokens.example.org')",
        )
        await response(scope, receive, send)

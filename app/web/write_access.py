"""Who may add, remove or train tokenizers from the web, and the errors that refuse the others.

When TOKENPRISM_ADMIN_TOKEN is set, the API needs `Authorization: Bearer
<token>` and the page's forms a `token` field; without it writing is open, as a local tool
should be. Either way a browser request from another site (its Origin is not this host)
is refused, so a page elsewhere cannot add or remove tokenizers behind the user's back.
Left out: the routes that write (tokenizer_store.py, app/web/training/).
"""

from __future__ import annotations

import hmac
from types import MappingProxyType
from urllib.parse import urlsplit

from fastapi import Request

from app.errors import TokenprismError, excerpt
from app.web.deps import services


class Unauthorized(TokenprismError):
    code = "unauthorized"
    status = 401
    headers = MappingProxyType({"WWW-Authenticate": "Bearer"})


class Forbidden(TokenprismError):
    code = "forbidden"
    status = 403


def check_write_access(request: Request, form_token: str | None = None) -> None:
    """Writes are same-site (always) and carry the admin token (when one is set)."""
    check_same_site(request)
    expected = services(request).settings.admin_token
    if not expected:
        return
    given = form_token
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer":
        given = credentials.strip()
    if not given or not hmac.compare_digest(given.encode(), expected.encode()):
        raise Unauthorized(
            "adding and removing tokenizers needs the admin token: send "
            "'Authorization: Bearer <TOKENPRISM_ADMIN_TOKEN>' (the page asks for it)"
        )


def check_same_site(request: Request) -> None:
    """Refuse a browser's request from another site: `Sec-Fetch-Site: cross-site`, `Origin:
    null` (a sandboxed frame, a file:// page) or an Origin whose host:port is not the Host.
    A request without Origin (curl, scripts) passes; the Host itself is checked by edge/hosts.py."""
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    fix = (
        "change tokenizers from this server's own pages, or without a browser "
        "(curl or a script, with the admin token when one is set)"
    )
    if origin is not None and origin.strip().lower() == "null":
        raise Forbidden(
            f"a request with 'Origin: null' (a sandboxed frame or a local file) may not change this "
            f"server's tokenizers; {fix}"
        )
    if origin is not None:
        try:
            parts = urlsplit(origin.strip())
            same = parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()
        except ValueError:  # "http://[::1" and other unparsable origins
            same = False
        if not same:
            raise Forbidden(f"a page on {excerpt(origin)} may not change this server's tokenizers; {fix}")
    if request.headers.get("sec-fetch-site", "").lower() == "cross-site":
        raise Forbidden(
            f"a request from another site (Sec-Fetch-Site: cross-site) may not change this server's tokenizers; {fix}"
        )

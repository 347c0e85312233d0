"""Per-client rate limits on the write routes: shares, tokenizer uploads, training jobs.

`RateLimit` is an ASGI middleware keyed by method and path (`Rule`): each client may make
`per_minute` such requests a minute, in bursts of up to `per_minute`, refilled evenly (a token
bucket). One more is a 429 `rate_limited` in the one error shape, with `Retry-After`: the
whole seconds until the next is allowed. Its body is read and dropped first (as for a 413),
so that a client sending it all before reading still gets the answer.

The client is the socket's peer address, never X-Forwarded-For: behind a reverse proxy
every client is the proxy's address, so give the proxy its own limits (or raise these).
The buckets live in this process: `tokenprism serve --workers N` allows N times the rate.
At most `MAX_CLIENTS` clients are tracked; past that the one seen longest ago is forgotten
(it starts again with a full bucket). Left out: limits on reads, shared state across
processes or machines.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from app.web.edge.security import drain, send_error

MAX_CLIENTS = 10_000


@dataclass(frozen=True)
class Rule:
    """`per_minute` requests a minute per client, over all of `routes` ((method, path) pairs);
    `what` names them in the 429's message and `setting` is the variable that sets the rate."""

    name: str
    routes: tuple[tuple[str, str], ...]
    per_minute: int
    what: str
    setting: str


class Buckets:
    """Token buckets per (client, rule), at most `max_clients` of them; safe across threads."""

    def __init__(self, max_clients: int = MAX_CLIENTS, clock=time.monotonic):
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()  # -> (tokens, when)
        self._lock = threading.Lock()

    def take(self, client: str, rule: Rule) -> float:
        """0 when `client` may go ahead under `rule` (and one token is taken), else the seconds to wait."""
        rate = rule.per_minute / 60.0
        key = (client, rule.name)
        with self._lock:
            now = self.clock()
            tokens, when = self._buckets.pop(key, (float(rule.per_minute), now))
            tokens = min(float(rule.per_minute), tokens + (now - when) * rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / rate
            self._buckets[key] = (tokens - 1 if wait == 0 else tokens, now)
            while len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
        return wait


class RateLimit:
    def __init__(self, app, rules: list[Rule], buckets: Buckets | None = None):
        self.app = app
        self.rules = {route: rule for rule in rules for route in rule.routes}
        self.buckets = buckets or Buckets()

    async def __call__(self, scope, receive, send):
        rule = self.rules.get((scope.get("method"), scope.get("path"))) if scope["type"] == "http" else None
        if rule is None:
            return await self.app(scope, receive, send)
        client = (scope.get("client") or ("unknown", 0))[0]
        wait = self.buckets.take(client, rule)
        if not wait:
            return await self.app(scope, receive, send)
        await drain(receive)
        seconds = max(1, math.ceil(wait))
        await send_error(
            send,
            429,
            "rate_limited",
            f"too many {rule.what} from your address: at most {rule.per_minute} a minute ({rule.setting}); "
            f"try again in {seconds} s",
            [(b"retry-after", str(seconds).encode())],
        )


def write_rules(settings) -> list[Rule]:
    """The app's limits: shares (API and the page's form), and tokenizer uploads with training jobs."""
    return [
        Rule(
            "shares",
            (("POST", "/api/share"), ("POST", "/share")),
            settings.shares_per_minute,
            "shares",
            "TOKENPRISM_SHARES_PER_MINUTE",
        ),
        Rule(
            "uploads",
            (("POST", "/api/tokenizers"), ("POST", "/tokenizers"), ("POST", "/api/train"), ("POST", "/train")),
            settings.uploads_per_minute,
            "tokenizer uploads and training jobs",
            "TOKENPRISM_UPLOADS_PER_MINUTE",
        ),
    ]

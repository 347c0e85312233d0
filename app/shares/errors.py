"""The share store's errors, each with its code and HTTP status: a document too large (413),
a full store (409), a file that cannot be used or is busy (503), a damaged share (500).
Leaves the messages to the store, which names the limit, the file or the share.
"""

from __future__ import annotations

from types import MappingProxyType

from app.errors import TokenprismError


class ShareTooLarge(TokenprismError):
    code = "share_too_large"
    status = 413


class StoreFull(TokenprismError):
    code = "store_full"
    status = 409


class StoreUnavailable(TokenprismError):
    code = "share_store_unavailable"
    status = 503


class StoreBusy(TokenprismError):
    code = "share_store_busy"
    status = 503
    headers = MappingProxyType({"Retry-After": "2"})


class ShareDamaged(TokenprismError):
    code = "share_damaged"
    status = 500

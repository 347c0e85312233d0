"""JSON response bodies, written lean: token lists go straight from ids and bytes to text.

A token list of 250,000 tokens as dicts, then through a JSON encoder, costs several
hundred bytes of Python objects per token; here each token is formatted once into its
JSON text (no `Token`, tuple or dict per token) and the parts are joined. The shape is
`schemas.TokenOut`. Bodies are built on a pool thread (see `pool.py`), compressed there
when the client accepts gzip, and handed to the event loop as finished bytes.
"""

from __future__ import annotations

import gzip
import json
from json.encoder import encode_basestring  # C: a str as a JSON string, non-ASCII kept

from fastapi.responses import Response

from app.tokenizers.tokens import CONTINUATION_BYTES

GZIP_MIN_BYTES = 2_000
GZIP_LEVEL = 1  # nginx's default: a 4 KB text's fragment 181 KB -> 34 KB in 1.8 ms (level 5: 27 KB in 3.3 ms)


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def token_list(ids: list[int], pieces: list[bytes], special_ids, ranges: list[tuple[int, int]] | None = None) -> str:
    """The JSON array of tokens for `ids` whose bytes are `pieces`. Without `ranges`, the
    pieces must join to valid UTF-8 and get the ranges `tokens.char_ranges` would give."""
    if ranges is not None:
        return (
            "["
            + ",".join(
                _token(token_id, piece, start, end, token_id in special_ids)
                for token_id, piece, (start, end) in zip(ids, pieces, ranges, strict=True)
            )
            + "]"
        )
    out: list[str] = []
    append = out.append
    chars = 0
    for token_id, piece in zip(ids, pieces, strict=True):
        if piece.isascii():
            start = chars
            chars += len(piece)
        else:
            start = chars - 1 if piece[0] in CONTINUATION_BYTES else chars
            chars += len(piece.translate(None, CONTINUATION_BYTES))
        append(_token(token_id, piece, start, chars, token_id in special_ids))
    return "[" + ",".join(out) + "]"


def _token(token_id: int, piece: bytes, start: int, end: int, special: bool) -> str:
    return (
        f'{{"id":{token_id},"text":{encode_basestring(piece.decode("utf-8", "replace"))},'
        f'"bytes":"{piece.hex()}","start":{start},"end":{end},"special":{"true" if special else "false"}}}'
    )


def json_response(body: str, accept_encoding: str = "", status: int = 200) -> Response:
    """A finished JSON body as a response; gzip-compressed here (call it on a pool thread)."""
    return finished_response(body.encode("utf-8"), "application/json", accept_encoding, status)


def finished_response(
    data: bytes, media_type: str, accept_encoding: str, status: int = 200, headers: dict | None = None
) -> Response:
    headers = dict(headers or {})
    if len(data) >= GZIP_MIN_BYTES and "gzip" in accept_encoding:
        data = gzip.compress(data, GZIP_LEVEL, mtime=0)
        headers["Content-Encoding"] = "gzip"
    headers["Vary"] = ", ".join(filter(None, [headers.get("Vary"), "Accept-Encoding"]))
    return Response(data, status_code=status, media_type=media_type, headers=headers)

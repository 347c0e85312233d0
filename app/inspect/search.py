"""Vocabulary search: the checked query, the matches of one page, and the stats.

`search(found, q, mode, offset, limit)` answers `GET /api/tokenizers/{name}/vocab`:

- `substring` (the default): every token whose bytes contain the UTF-8 of `q` (for a
  SentencePiece tokenizer a "▁" in `q` is a space, as SentencePiece reads it);
- `prefix`: every token whose bytes start with it;
- `regex`: every token whose text (UTF-8, a byte that is no whole character as U+FFFD)
  the pattern matches somewhere, within REGEX_BUDGET_S over the whole vocabulary, run in a
  sandbox child process (app/sandbox) that bounds its memory too;
- `id`: one id (`1234`) or a range (`1000-1100`);
- an empty `q`: the whole vocabulary, by id.

Matches come in id order; `total` counts all of them, `matches` holds `limit` of them
from `offset`. Every number and the query's length are bounded here (the page and the API
share these checks), and a bad value is an `InvalidInput` that names it and the range.
"""

from __future__ import annotations

import re

from app.errors import InvalidInput
from app.inspect.cache import Inspected
from app.tokenizers.tokens import clean_text

MODES = ("substring", "prefix", "regex", "id")
MAX_QUERY_CHARS = 256
DEFAULT_LIMIT = 50
MAX_LIMIT = 500
MAX_OFFSET = 10_000_000
REGEX_BUDGET_S = 2.0  # a whole regex search, over every token (o200k_base: ~0.2 s for a simple pattern)
_ID_RANGE = re.compile(r"\s*([0-9]{1,9})\s*(?:(?:-|\.\.)\s*([0-9]{1,9})\s*)?")


def check(q: str, mode: str, offset: int, limit: int) -> None:
    if mode not in MODES:
        raise InvalidInput(f"mode {mode[:40]!r} is not one of {', '.join(MODES)}")
    if len(q) > MAX_QUERY_CHARS:
        raise InvalidInput(f"q has {len(q):,} characters; a query may have at most {MAX_QUERY_CHARS}")
    if not 0 <= offset <= MAX_OFFSET:
        raise InvalidInput(f"offset {offset} is out of range; use a whole number from 0 to {MAX_OFFSET:,}")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit {limit} is out of range; use a whole number from 1 to {MAX_LIMIT}")


def positions(found: Inspected, q: str, mode: str) -> list[int]:
    """The positions (in id order) of every token that matches."""
    index = found.index
    if not q:
        return list(range(len(index)))
    if mode == "id":
        match = _ID_RANGE.fullmatch(q)
        if match is None:
            raise InvalidInput(f"q {q[:40]!r} is not a token id; with mode=id send an id (1234) or a range (1000-1100)")
        first = int(match[1])
        last = int(match[2]) if match[2] else first
        if last < first:
            raise InvalidInput(f"the id range {first}-{last} runs backwards; send the smaller id first")
        return index.id_range(first, last)
    if mode == "regex":
        return index.regex(q, REGEX_BUDGET_S)
    text = clean_text(q)
    if found.tokenizer.kind == "sentencepiece":  # SentencePiece reads its "▁" as a space, and so do we
        text = text.replace("\u2581", " ")
    data = text.encode("utf-8")
    return index.prefix(data) if mode == "prefix" else index.substring(data)


def search(found: Inspected, q: str = "", mode: str = "substring", offset: int = 0, limit: int = DEFAULT_LIMIT) -> dict:
    check(q, mode, offset, limit)
    matched = positions(found, q, mode)
    index = found.index
    page = matched[offset : offset + limit]
    return {
        "tokenizer": found.tokenizer.name,
        "q": q,
        "mode": mode,
        "offset": offset,
        "limit": limit,
        "total": len(matched),
        "matches": [_match(index, p) for p in page],
        "stats": index.stats,
    }


def _match(index, position: int) -> dict:
    data = index.piece(position)
    try:
        text, valid = data.decode("utf-8"), True
    except UnicodeDecodeError:
        text, valid = data.decode("utf-8", "replace"), False
    return {
        "id": index.ids[position],
        "text": text,
        "bytes": data.hex(),
        "length": len(data),
        "special": position in index.special,
        "valid_utf8": valid,
    }

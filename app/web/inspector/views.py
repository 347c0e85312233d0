"""What the inspector's pages show, prepared for their templates (no routes here).

Token text is escaped once here (`token_html`): spaces, tabs and newlines get visible
marks, control and bidi characters show as `\\u202e`-style escapes (text_escapes'
`render_text`), and bytes that are no whole character show as `<0xE2>`. The merge tree
becomes nested dicts with that HTML; the stats become the bars of a small SVG chart
(lengths 1 to CHART_LENGTHS, then one bar for the rest); the links between the pages
(token <-> vocabulary, the playground, the same bytes in other tokenizers) are built here.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from markupsafe import Markup

from app.inspect import search as vocab_search
from app.inspect import undertrained
from app.inspect.cache import Inspected
from app.inspect.facts import Node
from app.tokenizers.registry import Registry
from app.web.markup.text_escapes import render_text
from app.web.pages.common import quote_all

CHART_LENGTHS = 16
SPECIALS_SHOWN = 60
MODE_LABELS = {"substring": "contains", "prefix": "starts with", "regex": "regex", "id": "id or range"}
MODE_PHRASES = {"substring": "containing", "prefix": "starting with", "regex": "matching", "id": "with ids"}


def in_page_words(message: str) -> str:
    """A search error as the vocabulary page says it: the API's `q` is the search box and
    `mode=...` its Match menu (the API keeps its field names)."""
    message = re.sub(r"^q\b", "The search", message)
    message = re.sub(r"\bmode=(\w+)", lambda m: f"Match \u201c{MODE_LABELS.get(m[1], m[1])}\u201d", message)
    message = re.sub(r"^mode\b", "Match", message)
    return message.replace(" send an id", " type an id")


def token_html(data: bytes) -> Markup:
    """A token's bytes as safe HTML: valid UTF-8 with whitespace made visible, the rest as <0xNN>."""
    if not data:
        return Markup('<span class="esc nothing">∅</span>')
    parts, rest = [], data
    while rest:
        try:
            parts.append(str(render_text(rest.decode("utf-8"), show_ws=True)))
            break
        except UnicodeDecodeError as error:
            if error.start:
                parts.append(str(render_text(rest[: error.start].decode("utf-8"), show_ws=True)))
            bad = rest[error.start : error.end]
            parts += [
                f'<span class="esc byte" title="a byte that is not a whole UTF-8 character">&lt;0x{b:02X}&gt;</span>'
                for b in bad
            ]
            rest = rest[error.end :]
    return Markup("".join(parts))


def hex_spaced(data: bytes) -> str:
    return " ".join(f"{b:02X}" for b in data)


def token_url(name: str, token_id: int) -> str:
    return f"/tokenizers/{quote_all(name)}/tokens/{token_id}"


def vocab_url(name: str, **params) -> str:
    query = urlencode({k: v for k, v in params.items() if v not in ("", None)}, quote_via=quote_all)
    return f"/tokenizers/{quote_all(name)}" + (f"?{query}" if query else "")


def tree_json(node: Node) -> dict:
    return {
        "id": node.id,
        "bytes": node.bytes.hex(),
        "text": node.bytes.decode("utf-8", "replace"),
        "how": node.how,
        "depth": node.depth,
        "children": [tree_json(child) for child in node.children],
    }


def _tree_view(name: str, node: Node) -> dict:
    return {
        "id": node.id,
        "html": token_html(node.bytes),
        "hex": hex_spaced(node.bytes),
        "how": node.how,
        "url": token_url(name, node.id),
        "children": [_tree_view(name, child) for child in node.children],
    }


def chart(stats: dict) -> list[dict]:
    """Bars for tokens by byte length: 1..CHART_LENGTHS, then the rest as one bar."""
    counts = [(str(length), stats["by_length"].get(length, 0)) for length in range(1, CHART_LENGTHS + 1)]
    counts.append(
        (f"{CHART_LENGTHS + 1}+", sum(n for length, n in stats["by_length"].items() if length > CHART_LENGTHS))
    )
    top = max((n for _, n in counts), default=0) or 1
    return [
        {
            "label": label,
            "count": n,
            "height": round(100 * n / top, 2),
            "y": round(100 - 100 * n / top, 2),
            "x": 2 + i * 100 / len(counts),
        }
        for i, (label, n) in enumerate(counts)
    ]


def vocab_context(
    registry: Registry, found: Inspected, q: str, mode: str, limit: int, result: dict | None, error: str | None
) -> dict:
    tokenizer, index = found.tokenizer, found.index
    name = tokenizer.name
    rows, pages = [], {}
    if result is not None:
        rows = [
            {**match, "html": token_html(bytes.fromhex(match["bytes"])), "url": token_url(name, match["id"])}
            for match in result["matches"]
        ]
        offset, total = result["offset"], result["total"]
        if offset > 0:
            pages["prev"] = vocab_url(
                name,
                q=q,
                mode=mode,
                offset=max(0, offset - limit) or None,
                limit=limit if limit != vocab_search.DEFAULT_LIMIT else None,
            )
        if offset + limit < total:
            pages["next"] = vocab_url(
                name,
                q=q,
                mode=mode,
                offset=offset + limit,
                limit=limit if limit != vocab_search.DEFAULT_LIMIT else None,
            )
    specials = sorted(index.ids[p] for p in index.special)
    return {
        "name": name,
        "kind": tokenizer.kind,
        "vocab_size": tokenizer.vocab_size,
        "description": tokenizer.description,
        "builtin": registry.is_builtin(name),
        "stats": index.stats,
        "chart": chart(index.stats),
        "specials": [
            {"id": i, "html": token_html(index.bytes_of(i)), "url": token_url(name, i)}
            for i in specials[:SPECIALS_SHOWN]
        ],
        "specials_more": max(0, len(specials) - SPECIALS_SHOWN),
        "specials_range": vocab_url(name, q=f"{specials[0]}-{specials[-1]}", mode="id") if specials else None,
        "q": q,
        "mode": mode if mode in vocab_search.MODES else "substring",
        "modes": MODE_LABELS,
        "phrases": MODE_PHRASES,
        "result": result,
        "rows": rows,
        "pages": pages,
        "error": error,
        "action": vocab_url(name),
        "under_trained_model": undertrained.model_of(name),
        "max_query": vocab_search.MAX_QUERY_CHARS,
    }


def token_context(registry: Registry, found: Inspected, facts: dict, tree: Node, with_same_in: bool) -> dict:
    name, token_id, data = facts["tokenizer"], facts["id"], tree.bytes
    index = found.index
    position = index.position(token_id)
    assert position is not None  # the facts are of a token of this index
    text = data.decode("utf-8", "replace")
    if facts["special"]:
        try_url = "/?" + urlencode({"tokenizer": name, "text": text, "special": "1"}, quote_via=quote_all)
    elif facts["valid_utf8"] and text:
        try_url = "/?" + urlencode({"tokenizer": name, "text": text, "ws": "1"}, quote_via=quote_all)
    else:
        try_url = None
    same = [
        {"name": other, "id": other_id, "url": token_url(other, other_id) if other_id is not None else None}
        for other, other_id in facts["same_in"].items()
    ]
    return {
        "facts": facts,
        "name": name,
        "html": token_html(data),
        "hex": hex_spaced(data),
        "tree": _tree_view(name, tree),
        "has_tree": bool(tree.children),
        "try_url": try_url,
        "decode_url": "/?"
        + urlencode({"tokenizer": name, "mode": "decode", "ids": str(token_id)}, quote_via=quote_all),
        "vocab_url": vocab_url(name),
        "containing_url": vocab_url(name, q=text) if facts["valid_utf8"] and not facts["special"] and text else None,
        "prev_url": token_url(name, index.ids[position - 1]) if position else None,
        "next_url": token_url(name, index.ids[position + 1]) if position + 1 < len(index) else None,
        "same": same,
        "with_same_in": with_same_in,
        "same_in_url": token_url(name, token_id) + "?with=same-in",
        "listing": facts["under_trained_source"],
        "under_trained_model": facts["under_trained_model"],
        "under_trained_lists": sorted(undertrained.listings()),
        "under_trained_count": len(undertrained.listings().get(name, {})),
        "builtin": registry.is_builtin(name),
    }

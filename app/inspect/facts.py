"""What one token is: its bytes and text, where it comes from (its merge tree down to the
bytes), the same bytes in the other tokenizers, and whether it is listed as under-trained.

`token_facts` answers `GET /api/tokenizers/{name}/tokens/{id}` and feeds the inspector
page; `merge_tree` draws a token's lineage (`lineage.py`) down to tokens that have no
parents, at most MAX_TREE_NODES nodes (a 128-byte token has 255). `same_in` looks the
bytes up in every built-in tokenizer (each is loaded, and indexed, on first use, and kept
only within the memory budget, app/tokenizers/budget.py): a
special token matches only special tokens, a regular one only regular ones, and where a
vocabulary holds the bytes twice (a SentencePiece byte piece and a character piece) the
piece that is not a byte fallback is named. No web code here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.errors import BadTokenId, TokenprismError
from app.inspect import undertrained
from app.inspect.cache import Inspected, inspected
from app.tokenizers.registry import Registry

MAX_TREE_NODES = 4_096
_BYTE_PIECE = re.compile(r"<0x[0-9A-Fa-f]{2}>")


@dataclass
class Node:
    id: int
    bytes: bytes
    how: str | None = None  # how its two children make it: "merge" or "split"; None for a leaf
    children: list[Node] = field(default_factory=list)
    depth: int = 0  # merges below it, along the longest path down


def parse_token_id(value: str | int, name: str, size: int) -> int:
    """A token id from a URL or a query: a whole number, or BadTokenId (422) naming it."""
    text = str(value).strip()
    if not re.fullmatch(r"[0-9]{1,9}", text):
        shown = text if len(text) <= 40 else f"{text[:30]}… ({len(text):,} characters)"
        raise BadTokenId(f"token id {shown!r} is not a whole number; {name}'s ids go from 0 to {size - 1:,}")
    return int(text)


def checked_id(found: Inspected, value: str | int) -> int:
    tokenizer = found.tokenizer
    token_id = parse_token_id(value, tokenizer.name, tokenizer.vocab_size)
    if token_id >= tokenizer.vocab_size:
        raise BadTokenId(
            f"token id {token_id:,} is out of range for {tokenizer.name}; "
            f"its ids go from 0 to {tokenizer.vocab_size - 1:,}"
        )
    if found.index.position(token_id) is None:
        raise BadTokenId(
            f"{tokenizer.name} has no token {token_id:,} (a gap in its vocabulary); "
            "browse its vocabulary for the ids it has"
        )
    return token_id


def merge_tree(found: Inspected, token_id: int) -> Node:
    """The token and, recursively, the two tokens each node is made of, down to tokens with no parents."""
    index, lineage = found.index, found.lineage
    root = Node(token_id, index.bytes_of(token_id))
    stack, order, count = [root], [], 1
    while stack:
        node = stack.pop()
        order.append(node)
        parents = lineage.parents(node.id)
        if parents is None or count + 2 > MAX_TREE_NODES:
            continue
        node.how = parents.how
        node.children = [
            Node(parents.left, index.bytes_of(parents.left)),
            Node(parents.right, index.bytes_of(parents.right)),
        ]
        count += 2
        stack += node.children
    for node in reversed(order):  # children before their parent
        node.depth = 1 + max(child.depth for child in node.children) if node.children else 0
    return root


def same_in_one(registry: Registry, other_name: str, data: bytes, special: bool) -> int | None:
    """The id of a token of `other_name` whose bytes are `data` (None: none, or its file is damaged)."""
    try:
        other = inspected(registry.get(other_name))
    except TokenprismError:
        return None
    ids = other.index.exact(data, special)
    preferred = [i for i in ids if not _byte_fallback(other, i)]
    return (preferred or ids)[0] if ids else None


def same_in_names(registry: Registry, name: str) -> list[str]:
    """The tokenizers `same_in` looks in: every built-in but `name`."""
    return [entry.name for entry in registry.entries() if not entry.user and entry.name != name]


def same_in(registry: Registry, found: Inspected, token_id: int) -> dict[str, int | None]:
    """Built-in tokenizer name -> the id of a token with the same bytes there (None: no such token)."""
    data, special = found.index.bytes_of(token_id), found.index.is_special(token_id)
    return {
        other: same_in_one(registry, other, data, special) for other in same_in_names(registry, found.tokenizer.name)
    }


def _byte_fallback(found: Inspected, token_id: int) -> bool:
    piece = getattr(found.tokenizer, "piece", None)  # SentencePiece and Hugging Face name their pieces
    return piece is not None and _BYTE_PIECE.fullmatch(piece(token_id)) is not None


def token_facts(registry: Registry, name: str, value: str | int, with_same_in: bool = True) -> dict:
    """Everything the API says about one token (see the module docstring)."""
    found = inspected(registry.get(name))
    token_id = checked_id(found, value)
    tree = merge_tree(found, token_id)
    data = tree.bytes
    lineage = found.lineage
    merge = None
    if tree.children:
        left, right = tree.children
        merge = {"left": _brief(left.id, left.bytes), "right": _brief(right.id, right.bytes), "how": tree.how}
    canonical = found.tokenizer.name
    listed = undertrained.listing(canonical, token_id)
    return {
        "tokenizer": canonical,
        "kind": found.tokenizer.kind,
        "id": token_id,
        **_brief(token_id, data),
        "length": len(data),
        "special": found.index.is_special(token_id),
        "merge": merge,
        "merge_note": None if merge else lineage.note(token_id),
        "depth": tree.depth,
        "rank": lineage.rank(token_id),
        "score": lineage.score(token_id),
        "same_in": same_in(registry, found, token_id) if with_same_in else {},
        "under_trained": undertrained.flag(canonical, token_id),
        "under_trained_source": listed.to_dict() if listed else None,
        "under_trained_model": undertrained.model_of(canonical),
    }


def _brief(token_id: int, data: bytes) -> dict:
    return {"id": token_id, "bytes": data.hex(), "text": data.decode("utf-8", "replace"), "valid_utf8": _is_utf8(data)}


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True

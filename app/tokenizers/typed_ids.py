"""Ids typed by a person (the playground's decode box, `tokenprism decode`): `parse_ids` reads a
flat JSON array or numbers separated by spaces or commas. Leaves checking each id against a
vocabulary to the tokenizer (`Tokenizer.validate_ids`).
"""

from __future__ import annotations

import json
import re

from app.errors import BadTokenId

_ASCII_ID = re.compile(r"[+-]?[0-9]{1,30}")  # not \d: int() would also take "١٢" or "１２"
_JSON_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"?'  # a JSON string, or the rest of the text if unclosed
_STRING_OR_BRACKET = re.compile(_JSON_STRING + r"|[\[\]{}]", re.DOTALL)
_STRING_OR_COMMA = re.compile(_JSON_STRING + r"|,", re.DOTALL)
_WRITE_THEM = "write them as [15339, 1917] or as 15339 1917"
_FLAT = "send a flat array of whole numbers like [15339, 1917]"


def parse_ids(raw: str) -> list[object]:
    """Ids typed by a person: a flat JSON array, or numbers separated by spaces or commas.

    Whatever is not a whole number of ASCII digits stays as it was written (`"abc"`,
    `1.5`, `"١٢"`), so the engine's check names it and its position. Arrays or objects
    inside the array are refused, at any depth, without recursing into them."""
    raw = raw.strip()
    if not raw:
        return []
    if raw.startswith("{"):
        raise BadTokenId(f"the ids are not a JSON array; {_WRITE_THEM}")
    if not raw.startswith("["):
        items = [item for item in re.split(r"[\s,;]+", raw) if item]
        return [int(item) if _ASCII_ID.fullmatch(item) else item for item in items]
    _refuse_nesting(raw)
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise BadTokenId(
            f"the ids are not a valid JSON array ({error.msg}, at character {error.pos + 1}); {_WRITE_THEM}"
        ) from None
    except ValueError:  # int() refuses a number of over 4,300 digits
        raise BadTokenId(f"a token id in the array has thousands of digits; {_FLAT}") from None
    except RecursionError:  # _refuse_nesting should have caught any nesting first
        raise BadTokenId(f"the ids are nested too deeply; {_FLAT}") from None


def _refuse_nesting(raw: str) -> None:
    """A `BadTokenId` naming the first array or object inside the top-level array `raw`,
    found by counting brackets outside of strings (json.loads would recurse into it)."""
    if raw.count("[") == 1 and "{" not in raw:
        return
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(raw):
        mark = match.group()
        if mark in ("[", "{"):
            depth += 1
            if depth > 1:
                position = sum(m.group() == "," for m in _STRING_OR_COMMA.finditer(raw, 0, match.start()))
                kind = "a JSON array" if mark == "[" else "a JSON object"
                raise BadTokenId(f"token id at position {position} is {kind}, not a number; {_FLAT}")
        elif mark in ("]", "}"):
            depth -= 1
            if depth == 0:
                return  # the top-level array is closed; json.loads names anything after it

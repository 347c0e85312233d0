"""The tools' definitions as chatml writes them for OpenAI's API models: a TypeScript-like
`namespace functions` text, the rule gpt-tokenizer (and openai-chat-tokens before it) reproduce
the API's reported prompt tokens with.

    namespace functions {

    // <description>
    type <name> = (_: {
    // <description of a top-level property>
    <property>?: <type>,
    }) => any;

    } // namespace functions

A function without properties is `type <name> = () => any;`. A property is `name: type,`, with
`?` unless the schema's `required` lists it; its `// description` line is written at the top
level only. Types: string (or its enum's values as JSON, joined by " | "), number for number and
integer (or the enum's values), boolean, null, `T[]` for an array of T (`any[]` without items),
an object's properties in braces indented two more spaces, an `anyOf`'s alternatives joined by
" | " (openai-chat-tokens' addition, which the API's counts bear out), any other schema `any`.

The rule is JavaScript, so values are spelt as JavaScript spells them (`${value}`,
`JSON.stringify`), and an object's keys come in JavaScript's order (integer-like keys first,
ascending). Left out: every other JSON-schema keyword (formats, bounds, `const`, `$ref`,
`oneOf`, defaults): the rule writes none of them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from decimal import Decimal

from app.chat.messages import Tool

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


def _index(key: str) -> int | None:
    """The array index a key stands for in JavaScript's key order, if it is one."""
    if _ARRAY_INDEX.fullmatch(key) and int(key) < 2**32 - 1:
        return int(key)
    return None


def js_entries(value: object) -> list[tuple[str, object]]:
    """`Object.entries(value)` for a parsed JSON value."""
    if isinstance(value, dict):
        keys = [str(k) for k in value]
        indexed = sorted((k for k in keys if _index(k) is not None), key=int)
        return [(k, value[k]) for k in indexed + [k for k in keys if _index(k) is None]]
    if isinstance(value, (list, str)):
        return [(str(i), item) for i, item in enumerate(value)]
    return []


def js_truthy(value: object) -> bool:
    if isinstance(value, (dict, list)):
        return True
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def js_number(value: int | float) -> str:
    """A number as JavaScript's `String(number)` spells it (a JSON number is a double there)."""
    if isinstance(value, int) and abs(value) <= 2**53:
        return str(value)
    try:
        value = float(value)
    except OverflowError:  # an integer past a double's range: Infinity in JavaScript
        value = math.inf if value > 0 else -math.inf
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    _sign, digits, exponent = Decimal(repr(abs(value))).as_tuple()
    assert isinstance(exponent, int)  # finite: NaN and infinities returned above
    text = "".join(map(str, digits)).rstrip("0")
    exponent += len(digits) - len(text)
    k, n = len(text), len(text) + exponent  # value = 0.<text> * 10**n
    minus = "-" if value < 0 else ""
    if k <= n <= 21:
        return minus + text + "0" * (n - k)
    if 0 < n <= 21:
        return minus + text[:n] + "." + text[n:]
    if -6 < n <= 0:
        return minus + "0." + "0" * -n + text
    e = f"{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return minus + (text if k == 1 else text[0] + "." + text[1:]) + "e" + e


def js_string(value: object) -> str:
    """A value as a JavaScript template literal (`${value}`) writes it."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


def js_json(value: object) -> str:
    """`JSON.stringify(value)`."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool) or value is None:
        return js_string(value)
    if isinstance(value, (int, float)):
        return js_number(value) if math.isfinite(value) else "null"
    if isinstance(value, list):
        return "[" + ",".join(js_json(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{js_json(v)}" for k, v in js_entries(value)) + "}"
    return "null"


def _field(schema: object, key: str) -> object:
    return schema.get(key) if isinstance(schema, dict) else None


def type_text(schema: object, indent: int) -> str:
    """The TypeScript type a property's schema is written as."""
    alternatives = _field(schema, "anyOf")
    if isinstance(alternatives, list):
        return " | ".join(type_text(item, indent) for item in alternatives)
    kind, enum = _field(schema, "type"), _field(schema, "enum")
    if kind == "string":
        return " | ".join(map(js_json, enum)) if isinstance(enum, list) else "string"
    if kind in ("integer", "number"):
        return " | ".join(map(js_string, enum)) if isinstance(enum, list) else "number"
    if kind in ("boolean", "null"):
        return kind
    if kind == "array":
        items = _field(schema, "items")
        return f"{type_text(items, indent)}[]" if js_truthy(items) else "any[]"
    if kind == "object":
        return "{\n" + properties_text(schema, indent + 2) + "\n" + " " * indent + "}"
    return "any"


def properties_text(schema: object, indent: int) -> str:
    """An object schema's properties, one `name?: type,` each (after its `// description`
    line when at the top level)."""
    required = _field(schema, "required")
    required = {item for item in required if isinstance(item, str)} if isinstance(required, list) else set()
    lines: list[str] = []
    for name, prop in js_entries(_field(schema, "properties")):
        description = _field(prop, "description")
        if js_truthy(description) and indent < 2:
            lines.append(f"{' ' * indent}// {js_string(description)}")
        lines.append(f"{' ' * indent}{name}{'' if name in required else '?'}: {type_text(prop, indent)},")
    return "\n".join(lines)


def namespace_text(tools: Sequence[Tool]) -> str:
    """The `namespace functions { ... }` text of the tools, in their order."""
    lines = ["namespace functions {", ""]
    for tool in tools:
        if js_truthy(tool.description):
            lines.append(f"// {js_string(tool.description)}")
        if not js_entries(_field(tool.parameters, "properties")):
            lines.append(f"type {tool.name} = () => any;")
        else:
            lines.append(f"type {tool.name} = (_: {{")
            if properties := properties_text(tool.parameters, 0):
                lines.append(properties)
            lines.append("}) => any;")
        lines.append("")
    lines.append("} // namespace functions")
    return "\n".join(lines)

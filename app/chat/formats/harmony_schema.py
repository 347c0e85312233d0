"""The `# Tools` text of a harmony developer message: function tools as gpt-oss reads them.

`tools_section(tools)` gives what openai-harmony 0.0.8 writes for
`DeveloperContent.with_function_tools([ToolDescription.new(name, description, parameters)])`:
`# Tools`, `## functions`, then `namespace functions { ... }` with each tool's description
as `//` comment lines and its JSON schema as a TypeScript-like type
(`type get_weather = (_: {...}) => any;`). `typescript(schema)` follows the library's rules
feature by feature, so any schema renders as it does, not only the usual ones:
- object: its description as a comment before `{`; per property its title, description and
  string examples as comments, `name?:` unless required, the type, `,`, the default as a
  trailing comment; nested objects indent by four spaces;
- string (with an `enum`: its string values as `"a" | "b"`), number and integer (`number`),
  boolean, array (`T[]`, `Array<any>` without items), a list of types (`a | b`), `oneOf`
  (one ` | ` line per variant), `nullable` (`| null`); anything else is `any`.
Defaults that are not plain strings are JSON as serde_json writes it (compact, keys in their
order, numbers as Rust's shortest float form: 1e16, 0.00001, 1.0), which `json_text` does;
a number is first read as serde_json's default parser reads it (`serde_number`), which for
some long decimals lands one unit in the last place off the float Python holds.
Left out: tool namespaces other than `functions` (browser, python), a namespace description.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TypeGuard

from app.chat.messages import Tool
from app.errors import InvalidInput, excerpt

U64, I64 = 2**64, 2**63
POW10 = [float(f"1e{n}") for n in range(309)]  # serde_json's table, correctly rounded


def _get(value: object, key: str) -> object:
    return value.get(key) if isinstance(value, dict) else None


def _has(value: object, key: str) -> TypeGuard[dict]:
    return isinstance(value, dict) and key in value


def _text(value: object, key: str) -> str | None:
    found = _get(value, key)
    return found if isinstance(found, str) else None


def _is_enum(schema: object) -> bool:
    found = _get(schema, "enum")
    return isinstance(found, list) and bool(found)


def _rust_float(number: float) -> str:
    """A finite float as Rust's ryu writes it: shortest digits, `1e16`, `1.5e-7`, `0.0001`, `2.0`."""
    if number == 0:
        return "-0.0" if math.copysign(1, number) < 0 else "0.0"
    sign = "-" if number < 0 else ""
    mantissa, _, exponent = repr(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    both = whole + fraction
    digits = both.strip("0")  # the shortest digits d1 d2 ..., the number being digits * 10**power
    power = int(exponent or 0) - len(fraction) + len(both) - len(both.rstrip("0"))
    length = len(digits)
    point = length + power  # the decimal point goes after `point` digits
    if power >= 0 and point <= 16:
        return f"{sign}{digits}{'0' * power}.0"
    if 0 < point <= 16:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if -5 < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    tail = f".{digits[1:]}" if length > 1 else ""
    return f"{sign}{digits[0]}{tail}e{point - 1}"


def serde_number(number: int | float) -> int | float | None:
    """The number serde_json 1.0.140 reads from the JSON Python writes for `number`, or None when
    it refuses it (NaN, Infinity, out of range). Its default parser (no float_roundtrip) keeps
    at most a u64 of digits, then multiplies or divides by one power of ten: for some long
    decimals one unit in the last place off the correctly rounded float, which it then prints."""
    if isinstance(number, float) and not math.isfinite(number):
        return None
    try:
        text = json.dumps(number)
    except ValueError:  # an integer too long to write
        return None
    negative = text.startswith("-")
    mantissa, marked, power = text.lstrip("-").lower().partition("e")
    whole, dot, fraction = mantissa.partition(".")
    significand, exponent, full = 0, 0, False
    for digit in whole:
        full = full or significand * 10 + int(digit) >= U64
        significand, exponent = (significand, exponent + 1) if full else (significand * 10 + int(digit), exponent)
    if not (dot or marked or full):
        if not negative:
            return significand
        return -significand if 0 < significand <= I64 else -float(significand)
    full = False  # the fraction's digits are kept until one overflows, then all the rest dropped
    for digit in fraction:
        if full or significand * 10 + int(digit) >= U64:
            full = True
        else:
            significand, exponent = significand * 10 + int(digit), exponent - 1
    exponent += int(power or 0)
    value = float(significand)
    while abs(exponent) > 308:
        if value == 0.0:
            break
        if exponent >= 0:
            return None
        value, exponent = value / 1e308, exponent + 308
    else:
        value = value * POW10[exponent] if exponent >= 0 else value / POW10[-exponent]
        if math.isinf(value):
            return None
    return -value if negative else value


def json_text(value: object) -> str:
    """`value` as serde_json's compact Display writes it (what the library prints for a default)."""
    if value is None or isinstance(value, (bool, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float)):
        number = serde_number(value)
        assert number is not None  # check_numbers refused what serde_json cannot read
        return str(number) if isinstance(number, int) else _rust_float(number)
    if isinstance(value, list):
        return "[" + ",".join(json_text(item) for item in value) + "]"
    assert isinstance(value, dict)  # parsed JSON: what is left is an object
    return "{" + ",".join(f"{json_text(str(key))}:{json_text(item)}" for key, item in value.items()) + "}"


def _default(schema: object, raw_enum_string: bool) -> str:
    """A default's comment text; a string default is quoted unless the schema is an enum, where
    it is bare in a property's comment (`raw_enum_string`) and JSON in a top-level variant's."""
    default = _get(schema, "default")
    if isinstance(default, str) and not _is_enum(schema):
        return f'default: "{default}"'
    if isinstance(default, str) and raw_enum_string:
        return f"default: {default}"
    return f"default: {json_text(default)}"


def _nullable(type_text: str, schema: object) -> str:
    if _get(schema, "nullable") is True and "null" not in type_text:
        return f"{type_text} | null"
    return type_text


def typescript(schema: object, indent: str = "") -> str:
    """A JSON schema as the TypeScript-like type openai-harmony writes for it."""
    one_of = _get(schema, "oneOf")
    if isinstance(one_of, list):
        out = ""
        for variant in one_of:
            out += f"\n{indent} | " + _nullable(typescript(variant, indent + "   "), variant)
            comments = [text for text in [_text(variant, "description")] if text is not None]
            if _has(variant, "default"):
                comments.append(_default(variant, raw_enum_string=False))
            if comments:
                out += f" // {' '.join(comments)}"
        return out
    kinds = _get(schema, "type")
    if isinstance(kinds, list):
        names = ["number" if kind == "integer" else kind for kind in kinds if isinstance(kind, str)]
        if names:
            return " | ".join(names)
    if isinstance(kinds, str):
        if kinds == "object" and isinstance(schema, dict):  # always a dict: kinds came from it
            return _object(schema, indent)
        if kinds == "string":
            values = _get(schema, "enum")
            values = [f'"{value}"' for value in values if isinstance(value, str)] if isinstance(values, list) else []
            return " | ".join(values) if values else "string"
        if kinds in ("number", "integer"):
            return "number"
        if kinds == "boolean":
            return "boolean"
        if kinds == "array":
            return f"{typescript(schema['items'], indent)}[]" if _has(schema, "items") else "Array<any>"
    return "any"


def _object(schema: dict, indent: str) -> str:
    description = _text(schema, "description")
    out = f"{indent}// {description}\n" if description is not None else ""
    out += "{\n"
    properties = schema.get("properties")
    if isinstance(properties, dict):
        required = schema.get("required")
        required = {name for name in required if isinstance(name, str)} if isinstance(required, list) else set()
        for key, value in properties.items():
            mark = "" if key in required else "?"
            if (title := _text(value, "title")) is not None:
                out += f"{indent}// {title}\n{indent}//\n"
            if not _has(value, "oneOf") and (text := _text(value, "description")) is not None:
                out += f"{indent}// {text}\n"
            examples = _get(value, "examples")
            if isinstance(examples, list) and examples:
                out += f"{indent}// Examples:\n"
                out += "".join(f'{indent}// - "{example}"\n' for example in examples if isinstance(example, str))
            if isinstance(_get(value, "oneOf"), list):
                out += _one_of_property(key, mark, value, indent)
                continue
            out += f"{indent}{key}{mark}: " + _nullable(typescript(value, indent + "    "), value) + ","
            if not _has(value, "oneOf") and _has(value, "default"):
                out += f" // {_default(value, raw_enum_string=True)}"
            out += "\n"
    return out + f"{indent}}}"


def _one_of_property(key: str, mark: str, value: dict, indent: str) -> str:
    """A property whose schema is a `oneOf`: comments, `name?:`, then one ` | ` line per variant."""
    variants = value["oneOf"]
    description = _text(value, "description")
    first = _text(variants[0], "description") if variants else None
    above = description is not None and description != first
    out = f"{indent}// {description}\n" if above else ""
    if _has(value, "default"):
        out += f"{indent}// {_default(value, raw_enum_string=True)}\n"
    out += f"{indent}{key}{mark}:\n"
    for index, variant in enumerate(variants):
        out += f"{indent} | " + _nullable(typescript(variant, indent + "   "), variant)
        comments = []
        text = _text(variant, "description")
        if not (index == 0 and above) and text is not None and text != description:
            comments.append(text)
        if _has(variant, "default"):
            comments.append(_default(variant, raw_enum_string=True))
        if comments:
            out += f" // {' '.join(comments)}"
        out += "\n"
    return out + f"{indent},\n"


def _lines(text: str) -> list[str]:
    """Rust's `str::lines`: split after each "\\n", dropping it and a "\\r" just before it."""
    lines = text.split("\n")
    ended = [line[:-1] if line.endswith("\r") else line for line in lines[:-1]]
    return ended + ([lines[-1]] if lines[-1] else [])


def check_numbers(tool: Tool) -> None:
    """An `InvalidInput` for a number JSON cannot hold (NaN, Infinity, or an integer past a
    float's range) in a tool's schema: openai-harmony cannot read such a schema at all."""
    stack = [tool.parameters]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and serde_number(value) is None:
            raise InvalidInput(
                f"tool {excerpt(tool.name)}'s parameters hold a number JSON cannot carry (NaN, "
                "Infinity or beyond 1.8e308), so openai-harmony cannot read them; use a finite number"
            )


def tools_section(tools: Sequence[Tool]) -> str:
    """The `# Tools` section for function `tools` (openai-harmony's `functions` namespace)."""
    lines = ["## functions\n", "namespace functions {\n"]
    for tool in tools:
        check_numbers(tool)
        lines += [f"// {line}" for line in _lines(tool.description or "")]
        if tool.parameters is None:
            lines.append(f"type {tool.name} = () => any;\n")
        else:
            lines.append(f"type {tool.name} = (_: {typescript(tool.parameters)}) => any;\n")
    lines.append("} // namespace functions")
    return "# Tools\n\n" + "\n".join(lines)

"""The tools' definitions text of chatml (app/chat/formats/chatml_functions.py): every type the rule
writes, JavaScript's spelling of values and order of keys, and any JSON schema at all
written without an error."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.chat.formats.chatml_functions import js_json, js_number, js_string, namespace_text
from app.chat.messages import Tool

EVERY_TYPE = {
    "type": "object",
    "description": "not written",
    "required": ["name", "tags"],
    "properties": {
        "name": {"type": "string", "description": "Who"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", 'b "c"']}},
        "size": {"type": "integer", "enum": [1, 2.5, 1e21]},
        "ratio": {"type": "number", "minimum": 0},
        "ok": {"type": "boolean"},
        "none": {"type": "null"},
        "any": {"type": "array"},
        "either": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Or nothing"},
        "nested": {
            "type": "object",
            "description": "Deep",
            "required": ["x"],
            "properties": {
                "x": {"type": "number", "description": "not written below the top"},
                "rows": {"type": "array", "items": {"type": "object", "properties": {"y": {"type": "boolean"}}}},
            },
        },
        "odd": {"type": ["string", "null"]},
    },
}
EXPECTED = """namespace functions {

// Make a thing
type make = (_: {
// Who
name: string,
tags: "a" | "b \\"c\\""[],
size?: 1 | 2.5 | 1e+21,
ratio?: number,
ok?: boolean,
none?: null,
any?: any[],
// Or nothing
either?: string | null,
// Deep
nested?: {
  x: number,
  rows?: {
    y?: boolean,
  }[],
},
odd?: any,
}) => any;

type ping = () => any;

} // namespace functions"""


def test_every_type_the_rule_writes():
    tools = (Tool("make", "Make a thing", EVERY_TYPE), Tool("ping", None, {"type": "object", "properties": {}}))
    assert namespace_text(tools) == EXPECTED


def test_a_function_without_parameters_or_properties_takes_nothing():
    for parameters in (None, {}, {"type": "object"}, {"type": "object", "properties": {}}):
        assert "type f = () => any;" in namespace_text((Tool("f", None, parameters),))
    assert namespace_text(()) == "namespace functions {\n\n} // namespace functions"


def test_keys_come_in_javascripts_order():
    properties = {"b": {}, "10": {}, "a": {}, "2": {}, "01": {}, "4294967295": {}}
    text = namespace_text((Tool("f", None, {"properties": properties}),))
    assert [line.split("?")[0] for line in text.splitlines()[3:9]] == ["2", "10", "b", "a", "01", "4294967295"]
    assert js_json({"b": 1, "1": [True, None, "é"]}) == '{"1":[true,null,"é"],"b":1}'


@pytest.mark.parametrize(
    "value, spelt",
    [
        (0, "0"),
        (-0.0, "0"),
        (7, "7"),
        (1.0, "1"),
        (1.5, "1.5"),
        (-2.25, "-2.25"),
        (100.0, "100"),
        (0.1, "0.1"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.25e22, "1.25e+22"),
        (2**53, "9007199254740992"),
        (2**53 + 1, "9007199254740992"),
        (10**400, "Infinity"),
        (float("nan"), "NaN"),
        (-float("inf"), "-Infinity"),
    ],
)
def test_numbers_are_spelt_as_javascript_spells_them(value, spelt):
    assert js_number(value) == spelt


def test_values_in_templates_and_json_are_spelt_as_javascript_does():
    assert [js_string(v) for v in ("x", True, None, [1, None, "a"], {"k": 1})] == [
        "x",
        "true",
        "null",
        "1,,a",
        "[object Object]",
    ]
    assert js_json(float("inf")) == "null" and js_json('a\n"b"') == '"a\\n\\"b\\""'


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=5)
    | st.sampled_from(["object", "array", "string", "number", "anyOf", "properties", "items"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "properties", "items", "anyOf", "enum", "required", "description", "0", "x"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, database=None)
@given(
    parameters=st.dictionaries(st.sampled_from(["type", "properties", "required"]), JSON, max_size=3),
    description=st.one_of(st.none(), st.text(max_size=5)),
)
def test_any_json_schema_is_written_without_an_error(parameters, description):
    text = namespace_text((Tool("f", description, parameters),))
    assert text.startswith("namespace functions {\n\n") and text.endswith("\n} // namespace functions")

"""Our Draft 7 schema check (app/chat/formats/mistral_tools.py `schema_problem`) against the one
mistral-common calls, jsonschema's `Draft7Validator.check_schema` (with its format checker:
"regex"), on schema-like values generated here: each keyword with values of every JSON
kind, nested. Both accept or both refuse."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.chat.formats.mistral_tools import RULES, schema_problem

KEYWORDS = [*sorted(RULES), "default", "const", "x-extra", "$defs"]
leaves = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.0, 1.0, 1.5, -0.5, 2.0, 1e300])
    | st.sampled_from(["string", "object", "integer", "number", "strnig", "a", "(", "[a-z]+", "a{99999999999}"])
)


def schema_like(inner):
    names = st.sampled_from(["a", "b", "(", "[x]"])
    return (
        st.lists(inner, max_size=3)
        | st.dictionaries(names, inner, max_size=2)
        | st.dictionaries(st.sampled_from(KEYWORDS), inner, max_size=3)
    )


values = st.recursive(leaves, schema_like, max_leaves=12)
anything = st.dictionaries(st.sampled_from(KEYWORDS), values, max_size=4)
strings = st.sampled_from(["a", "b", "string", "(", "[a-z]+"])
TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"]


def well_formed(inner):
    """A schema whose keywords mostly have values of the right kind, schemas nested."""
    right = {
        "type": st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3),
        "properties": st.dictionaries(strings, inner, max_size=2),
        "items": inner | st.lists(inner, min_size=1, max_size=2),
        "required": st.lists(strings, max_size=3),
        "anyOf": st.lists(inner, min_size=1, max_size=2),
        "not": inner,
        "additionalProperties": inner,
        "dependencies": st.dictionaries(strings, inner | st.lists(strings)),
        "patternProperties": st.dictionaries(strings, inner, max_size=2),
        "minimum": st.integers(-2, 2) | st.floats(-2, 2),
        "minLength": st.integers(-1, 3) | st.sampled_from([1.0, 0.5, True]),
        "pattern": strings,
        "enum": st.lists(leaves),
        "multipleOf": st.sampled_from([0, 1, 0.5, -1]),
        "description": strings,
        "uniqueItems": st.booleans(),
    }
    return (
        st.dictionaries(st.sampled_from(sorted(right)), st.just(None), max_size=4).flatmap(
            lambda keys: st.fixed_dictionaries({k: right[k] for k in keys})
        )
        | st.booleans()
    )


schemas = anything | st.recursive(st.booleans() | st.just({}), well_formed, max_leaves=10).filter(
    lambda s: isinstance(s, dict)
)


@settings(max_examples=2000, deadline=None, database=None)
@given(schema=schemas)
def test_schema_check_agrees_with_jsonschema_draft7(schema):
    from jsonschema import Draft7Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft7Validator.check_schema(schema)
        valid = True
    except (SchemaError, OverflowError):  # OverflowError: a pattern whose repeat count Python's re cannot take
        valid = False
    problem = schema_problem(schema)
    assert (problem is None) == valid, problem


def test_problems_say_where():
    assert schema_problem({"type": "object", "properties": {"a": {"items": [{"minimum": "1"}]}}}) == (
        "the schema's properties['a']'s items[0]'s 'minimum' must be a number"
    )
    assert schema_problem({"patternProperties": {"(": {}}}) == (
        "the schema's patternProperties key '(' is not a valid regular expression"
    )
    assert (
        schema_problem({"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "required": ["a"]}) is None
    )

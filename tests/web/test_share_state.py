"""A page state as a share (app/web/share/state.py), without a server: the JSON fields and
the page's form give the same document, a document opens to the same state, and the JSON
twin of a state posts back to the same document, for any text, chat and options. The
options list is checked against the page states, so a new option cannot be left out of
shares unnoticed."""

from __future__ import annotations

from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.datastructures import QueryParams

from app.shares.store import Share
from app.web.pages.compare import CompareState
from app.web.pages.playground import PlaygroundState
from app.web.share.state import (
    FLAGS,
    CompareShare,
    PlaygroundShare,
    ShareRequest,
    document,
    json_pairs,
    opened,
    state_from,
    state_json,
)

texts = st.text(st.characters(codec="utf-8", exclude_characters="\r"), max_size=40)
names = st.one_of(st.none(), st.text(st.characters(codec="utf-8", exclude_characters="\r"), min_size=1, max_size=8))
messages = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "user", "assistant"]), "content": texts},
        optional={"name": names.filter(lambda n: n is not None)},
    ),
    min_size=1,
    max_size=5,
)
flags = {name: st.booleans() for name in {*FLAGS["compare"], *FLAGS["playground"]}}
playground_bodies = st.one_of(
    st.fixed_dictionaries(
        {
            "page": st.just("playground"),
            "tokenizer": st.sampled_from(["gpt2", "gpt-4o", "mistral_v1"]),
            "mode": st.just("encode"),
            "text": texts,
            "view": st.sampled_from(["text", "ids", "bytes"]),
            **{name: flags[name] for name in FLAGS["playground"]},
        }
    ),
    st.fixed_dictionaries({"page": st.just("playground"), "mode": st.just("chat"), "messages": messages}),
    st.fixed_dictionaries(
        {"page": st.just("playground"), "mode": st.just("decode"), "ids": st.lists(st.integers(0, 50_000), max_size=20)}
    ),
)
compare_bodies = st.fixed_dictionaries(
    {
        "page": st.just("compare"),
        "tokenizers": st.lists(
            st.sampled_from(["gpt2", "cl100k_base", "o200k_base"]), min_size=2, max_size=3, unique=True
        ),
        "mode": st.sampled_from(["text", "chat"]),
        "text": texts,
        "messages": messages,
        **{name: flags[name] for name in FLAGS["compare"]},
    }
)


def bool_fields(cls) -> set[str]:
    return {f.name for f in fields(cls) if f.type in ("bool", bool)}


@pytest.mark.parametrize(
    ("page", "state_cls", "model"),
    [("playground", PlaygroundState, PlaygroundShare), ("compare", CompareState, CompareShare)],
)
def test_the_flags_are_every_option_of_the_page(page, state_cls, model, registry):
    assert set(FLAGS[page]) == bool_fields(state_cls)
    assert set(FLAGS[page]) == {name for name, info in model.model_fields.items() if info.annotation in (bool, "bool")}
    state = state_from(page, QueryParams([(flag, "1") for flag in FLAGS[page]]), registry, from_form=False)
    assert all((flag, "1") in state.query() for flag in FLAGS[page])  # each one is written in the address


def as_share(doc: dict) -> Share:
    return Share("0" * 32, doc, "2026-01-01T00:00:00Z", 0, 0)


@settings(max_examples=60, deadline=None)
@given(body=st.one_of(playground_bodies, compare_bodies))
def test_a_state_survives_storing_and_its_twin_posts_back_to_it(body, registry):
    request = ShareRequest.model_validate(body).root
    state = state_from(request.page, json_pairs(request), registry, from_form=False)
    doc = document(request.page, state)
    page, reopened = opened(as_share(doc), registry)
    assert page == request.page and reopened.query() == state.query()
    twin = ShareRequest.model_validate({"page": page, **state_json(page, reopened)}).root
    assert document(page, state_from(page, json_pairs(twin), registry, from_form=False)) == doc


def test_the_form_and_the_json_give_the_same_document(registry):
    text = "line one\nline two 🦊"
    form = QueryParams(
        [
            ("tokenizers", "gpt2"),
            ("tokenizers", "o200k_base"),
            ("mode", "text"),
            ("text", text.replace("\n", "\r\n")),
            ("cuts", "on"),
            ("role", "user"),
            ("content", "unused"),
        ]
    )
    by_form = document("compare", state_from("compare", form, registry, from_form=True))
    body = ShareRequest.model_validate(
        {"page": "compare", "tokenizers": ["gpt2", "o200k_base"], "text": text, "cuts": True}
    ).root
    assert document("compare", state_from("compare", json_pairs(body), registry, from_form=False)) == by_form
    assert by_form["query"] == [["tokenizers", "gpt2"], ["tokenizers", "o200k_base"], ["text", text], ["cuts", "1"]]

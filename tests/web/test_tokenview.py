"""Fast checks of what the pages draw, without a browser: escaping and id parsing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import BadTokenId
from app.tokenizers.typed_ids import parse_ids
from app.web.markup.text_escapes import render_decoded, render_text
from app.web.markup.tokenview import build_view


@pytest.mark.parametrize(
    "text",
    ['"><img src=x onerror=alert(1)>', "<script>alert(1)</script>", "{{7*7}}", "&lt;b&gt;", "a'b\"c"],
)
def test_user_text_is_escaped(text):
    html = str(render_text(text))
    assert "<img" not in html and "<script" not in html
    assert (
        html.replace("&#34;", '"').replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        == text
    )


@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\u2066", "\ufeff", "\x00", "\x1b", "\x85", "\u2028"])
def test_hidden_characters_always_show_as_escapes(char):
    html = str(render_text(f"a{char}b"))
    assert char not in html
    assert f"\\u{ord(char):04x}" in html


def test_whitespace_marks_only_when_asked():
    assert "·" not in str(render_text("a b\tc\n"))
    shown = str(render_text("a b\tc\n", show_ws=True))
    assert "·" in shown and "→" in shown and "↵" in shown


def test_emoji_sequences_keep_their_joiners():
    family = "👨\u200d👩\u200d👧"
    assert family in str(render_text(f"x {family} y"))


def test_decoded_replacement_characters_are_marked():
    html = str(render_decoded("a\ufffdb"))
    assert 'class="esc bad"' in html and html.startswith("a") and html.endswith("b")


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("[1, 2, 3]", [1, 2, 3]),
        ("1 2,3;4", [1, 2, 3, 4]),
        ("  ", []),
        ("1 abc 1.5 -2", [1, "abc", "1.5", -2]),
        ("[1, true, 2.5]", [1, True, 2.5]),
    ],
)
def test_parse_ids_keeps_bad_values_for_the_check_to_name(raw, expected):
    assert parse_ids(raw) == expected


@pytest.mark.parametrize("raw", ["[1, 2", '{"ids": [1]}', "[1]]"])
def test_parse_ids_rejects_broken_json_with_a_fix(raw):
    with pytest.raises(BadTokenId, match=r"\[15339, 1917\]"):
        parse_ids(raw)


def test_the_token_markup_escapes_every_piece_of_user_text(registry):
    import html as html_module
    import re

    from app.web.markup.tokenview import build_view

    own_tags = re.compile(r'</?(?:bdi|span)(?: [a-z-]+="[^"<>]*")*>')  # attribute values hold no < > "
    text = '<b title="x">it\'s</b> & "<script>alert(1)</script>" 👋🏽'
    tokens = registry.get("cl100k_base").tokenize(text)
    for view in ("text", "ids", "bytes"):
        markup = str(build_view(text, tokens, view).html)
        inner = own_tags.sub("", markup)
        assert "<" not in inner and ">" not in inner, inner
        if view == "text":
            assert html_module.unescape(inner) == text


def test_bytes_that_are_not_utf8_show_as_escaped_byte_labels(registry):
    from app.web.markup.tokenview import build_view

    tokenizer = registry.get("cl100k_base")
    text, tokens = tokenizer.tokens_for_ids([9468])  # one piece of an emoji: not UTF-8 alone
    html = str(build_view(text, tokens).html)
    assert "&lt;0x" in html and "<0x" not in html


@settings(max_examples=300, deadline=None)
@given(value=st.text())
def test_page_addresses_quote_as_urllib_does(value):
    from urllib.parse import quote

    from app.web.pages.common import quote_all

    value = value.encode("utf-8", "replace").decode("utf-8")  # as clean_text leaves it: no lone surrogates
    assert quote_all(value) == quote(value, safe="")


@settings(max_examples=100, deadline=None)
@given(
    st.text(max_size=60),
    st.lists(st.integers(0, 60), max_size=5),
    st.sampled_from(["text", "ids", "bytes"]),
    st.booleans(),
)
def test_groups_wrap_every_segment_once(text, offsets, view, ws):
    """`groups` only adds balanced wrappers: without its <span>s the markup is the ungrouped one."""
    import re

    from hypothesis import assume

    from app.tokenizers.tokens import Token

    assume(text)  # an empty text draws a note, no segments
    data = text.encode("utf-8")
    tokens = [Token(i, char.encode("utf-8"), i, i + 1) for i, char in enumerate(text)]  # a token per character
    assert b"".join(t.bytes for t in tokens) == data
    groups = [(offset, f'class="g" data-message="{n}"') for n, offset in enumerate(sorted(offsets))]
    plain = build_view(text, tokens, view, ws)
    grouped = build_view(text, tokens, view, ws, groups=groups)
    html = str(grouped.html)
    assert html.count('<span class="g"') == html.count("</span>") - str(plain.html).count("</span>")
    assert re.sub(r'<span class="g" data-message="\d+">|</span>(?=<span class="g"|$)', "", html) == str(plain.html)
    assert grouped.ids_html == plain.ids_html


def test_line_counts_cover_the_drawn_tokens_and_mark_a_line_cut_short(registry):
    import re

    text = "first line here\n\nsecond line, a long one " + "word " * 200 + "\nthird"
    tokens = registry.get("cl100k_base").tokenize(text)
    view = build_view(text, tokens, budget=20, lines=True)
    lines = re.findall(r'data-line="(\d+)" data-count="(\d+)" data-label="([^"]+)"', str(view.html))
    assert [line for line, _, _ in lines] == ["1", "3"]  # the empty line 2 has no tokens of its own
    assert sum(int(count) for _, count, _ in lines) == view.shown_tokens
    assert lines[-1][2].endswith("+") and not lines[0][2].endswith("+")  # line 3 is drawn only in part
    whole = build_view(text, tokens, lines=True)
    assert re.findall(r'data-line="(\d+)"', str(whole.html)) == ["1", "3", "4"]
    assert "+" not in "".join(re.findall(r'data-label="([^"]+)"', str(whole.html)))

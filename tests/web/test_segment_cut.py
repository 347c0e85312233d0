"""The token list draws at most `render_tokens` tokens, cut where a segment ends (issue 19:
"Drawing the first 5,001" when the limit is 5,000)."""

from __future__ import annotations

from app.web.markup.tokenview import build_view, segment_cut


def test_a_cut_inside_a_character_goes_back_to_its_start(registry):
    text = "안녕하세요 🦊 " * 300
    tokens = registry.get("gpt2").tokenize(text)
    for budget in range(4, 80):  # past the first character, which alone takes 3 tokens
        cut = segment_cut(tokens, budget)
        assert cut <= budget
        assert cut == len(tokens) or tokens[cut].start >= max(t.end for t in tokens[:cut])  # a segment's end
        view = build_view(text, tokens, "text", False, budget, None, None)
        assert view.shown_tokens == cut


def test_one_segment_longer_than_the_budget_is_drawn_whole(registry):
    tokens = registry.get("gpt2").tokenize("🦊")  # one character, several byte tokens
    assert len(tokens) > 1
    assert segment_cut(tokens, 1) == len(tokens)

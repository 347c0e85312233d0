"""The chat editor's state (app/web/pages/chat_form.py): a chat survives the trip through the
page address, the editor's buttons do what they say, and a chat too long to edit is refused
with the messages kept."""

from __future__ import annotations

from urllib.parse import urlencode

from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.datastructures import QueryParams

from app.chat.messages import ChatMessage
from app.web.pages.chat_form import DEFAULT_CHAT, MAX_PAGE_MESSAGES, apply_op, chat_query, read_chat

texts = st.text(st.characters(codec="utf-8", exclude_characters="\r"), max_size=30)
roles = st.sampled_from(["system", "user", "assistant", "developer", "tool", "<b>x</b>"])
names = st.one_of(st.none(), st.text(st.characters(codec="utf-8", exclude_characters="\r"), min_size=1, max_size=8))
chats = st.lists(st.builds(ChatMessage, roles, texts, names), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(chats)
def test_a_chat_survives_the_page_address(messages):
    back, problem = read_chat(QueryParams(urlencode(chat_query(messages))))
    assert problem is None and back == messages


def test_no_chat_is_the_default_one():
    assert read_chat(QueryParams("mode=chat"))[0] == list(DEFAULT_CHAT)


def test_buttons():
    a, b, c = ChatMessage("system", "a"), ChatMessage("user", "b"), ChatMessage("assistant", "c")
    assert apply_op([a, b], "add") == [a, b, ChatMessage("assistant", "")]
    assert apply_op([a, c], "add") == [a, c, ChatMessage("user", "")]
    assert apply_op([a, b, c], "up:2") == [a, c, b]
    assert apply_op([a, b, c], "down:0") == [b, a, c]
    assert apply_op([a, b, c], "remove:1") == [a, c]
    assert apply_op([a], "remove:0") == [a]  # the last message stays
    for nonsense in ("up:0", "down:2", "remove:3", "remove:-1", "up:x", "swap:1", "remove:99999999999999999999", ""):
        assert apply_op([a, b, c], nonsense) == [a, b, c], nonsense


def test_too_many_messages_keeps_what_fits_and_says_so():
    messages = [ChatMessage("user", str(i)) for i in range(MAX_PAGE_MESSAGES + 5)]
    kept, problem = read_chat(QueryParams(urlencode(chat_query(messages))))
    assert kept == messages[:MAX_PAGE_MESSAGES]
    assert problem.status == 413 and f"at most {MAX_PAGE_MESSAGES}" in problem.message


def test_add_stops_at_the_page_limit():
    full = [ChatMessage("user", "x")] * MAX_PAGE_MESSAGES
    assert len(apply_op(list(full), "add")) == MAX_PAGE_MESSAGES

"""Whose each token of a rendered chat template is: a message's content, a message's framing,
the tools', or the reply priming (app/chat/formats/template_format.py renders and makes the parts).

A template is code: it may reorder, trim, escape or drop what it is given, so the parts are
found in its text, not known; the rules (approximate where a template is unusual):
- the tools': when the chat has tools, the template is also rendered without them
  (`tools=None`), and the tokens the tools add are theirs (`tools_mask`: after the common
  head and tail, the tokens a diff of the two id sequences finds inserted or replaced). That
  is the definitions and what the template writes only because there are tools (Llama 3.1's
  "Environment: ipython", an instruction around the list). When the differing middles are too
  long to diff (over DIFF_CELLS), the whole middle but the contents found in it is the tools';
  when the template cannot render the chat without tools, none is. Tools' tokens belong to
  no message.
- content: each message's content, then each of its calls' arguments, is looked for in order,
  from where the previous one was found and outside the tools' text, as given or as `tojson`
  writes it (whichever comes first), else trimmed; tokens that start inside it are its content.
- framing between two contents goes to the earlier one's message up to and including its
  first special token (its end of turn), the rest to the later one (the next header); before
  the first content to the first message found; after the last one's end of turn to none.
A message none of whose texts is found in these forms (a template that drops it, or writes it
otherwise) is charged nothing: its tokens go to its neighbours as framing.
Left out: telling a call's name from its header (both are its message's framing).
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Sequence
from difflib import SequenceMatcher

from app.chat.messages import ChatMessage

DIFF_CELLS = 4_000_000  # longest middles' product diffed token by token (difflib is about quadratic)

Owner = tuple[int | None, bool, bool]  # (message, framing, tools)


def tools_mask(ids: Sequence[int], bare: Sequence[int]) -> tuple[list[bool], bool]:
    """For each of `ids` (the chat with tools), whether the tools added it (`bare` is the chat
    without), and whether that was diffed (else the whole middle is marked)."""
    shorter = min(len(ids), len(bare))
    head = 0
    while head < shorter and ids[head] == bare[head]:
        head += 1
    tail = 0
    while tail < shorter - head and ids[-1 - tail] == bare[-1 - tail]:
        tail += 1
    mask = [False] * len(ids)
    middle, bare_middle = ids[head : len(ids) - tail], bare[head : len(bare) - tail]
    if len(middle) * len(bare_middle) > DIFF_CELLS:
        mask[head : len(ids) - tail] = [True] * len(middle)
        return mask, False
    for tag, _, _, start, end in SequenceMatcher(None, bare_middle, middle, autojunk=False).get_opcodes():
        if tag in ("insert", "replace"):
            mask[head + start : head + end] = [True] * (end - start)
    return mask, True


def _regions(tokens, mask: Sequence[bool]) -> tuple[list[int], list[int]]:
    """The tools' text as sorted, merged character ranges (starts, ends)."""
    starts: list[int] = []
    ends: list[int] = []
    for token, tool in zip(tokens, mask, strict=True):
        if not tool:
            continue
        if ends and ends[-1] >= token.start:
            ends[-1] = max(ends[-1], token.end)
        else:
            starts.append(token.start)
            ends.append(token.end)
    return starts, ends


def _find_outside(text: str, needle: str, cursor: int, regions) -> int:
    starts, ends = regions
    while (found := text.find(needle, cursor)) >= 0:
        inside = bisect_right(starts, found) - 1
        if inside < 0 or found >= ends[inside]:
            return found
        cursor = ends[inside]
    return -1


def _find(text: str, value: str, cursor: int, regions) -> tuple[int, int] | None:
    """Where `value` is, as given or as `tojson` writes it (the earlier), else trimmed."""
    found = None
    for form in dict.fromkeys((value, json.dumps(value, ensure_ascii=False))):
        at = _find_outside(text, form, cursor, regions)
        if at >= 0 and (found is None or at < found[0]):
            found = (at, at + len(form))
    trimmed = value.strip()
    if found is None and trimmed and trimmed != value:
        at = _find_outside(text, trimmed, cursor, regions)
        found = (at, at + len(trimmed)) if at >= 0 else None
    return found


def _spans(text: str, messages: Sequence[ChatMessage], regions) -> list[tuple[int, int, int]]:
    """(message, start, end) of each content and call's arguments found, in order."""
    spans, cursor = [], 0
    for index, message in enumerate(messages):
        for value in (message.content, *(call.arguments for call in message.tool_calls)):
            if value and (found := _find(text, value, cursor, regions)):
                spans.append((index, *found))
                cursor = found[1]
    return spans


def owners(
    text: str, tokens, messages: Sequence[ChatMessage], mask: Sequence[bool], diffed: bool = True
) -> list[Owner]:
    """(message, framing, tools) for each token, as the module docstring says; contents are
    looked for outside the tools' text only when `mask` was `diffed`."""
    spans = _spans(text, messages, _regions(tokens, mask) if diffed else ([], []))
    out: list[Owner] = []
    span, closed = 0, False  # `closed`: the gap after spans[span-1] has had its special token
    for token, tool in zip(tokens, mask, strict=True):
        while span < len(spans) and token.start >= spans[span][2]:
            span, closed = span + 1, False
        if span < len(spans) and spans[span][1] <= token.start:
            out.append((spans[span][0], False, False))
        elif tool:
            out.append((None, True, True))
        elif span == 0:
            out.append((spans[0][0] if spans else None, True, False))
        else:
            later = spans[span][0] if span < len(spans) else None
            out.append((later if closed else spans[span - 1][0], True, False))
            closed = closed or token.special
    return out

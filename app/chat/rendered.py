"""A chat prompt as the model sees it, in parts: what every chat format returns.

A `Rendered` prompt is a list of `Part`s in order: framing the format adds (special tokens
such as `<|im_start|>`, role names, separators), each message's content, and the tools'
definitions, every part knowing its message. Its ids are the parts' ids joined; its text
(what the page draws) is the parts' texts joined, a special token showing as its string.
`tokens()` gives the one `Token` type with ranges into that text, so the playground's token
partial draws a chat like any text. The formats (app/chat/*_format.py) build these; which
format a tokenizer uses is app/chat/render.py's. Left out: rendering itself.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from app.tokenizers.base import Tokenizer
from app.tokenizers.tokens import Token


@dataclass(frozen=True, slots=True)
class Part:
    text: str  # what this part stands for in the prompt
    ids: tuple[int, ...]
    message: int | None  # index of its message; None for the reply priming
    framing: bool  # added by the format, not typed by the user
    special: bool = False  # one special token whose bytes are `text`
    tokens: tuple[Token, ...] | None = None  # its tokens (ranges into `text`) when known, else made from `ids`
    tools: bool = False  # part of the tools' definitions (counted apart: Rendered.tools_count)


@dataclass(frozen=True)
class Rendered:
    tokenizer: Tokenizer
    format: str
    parts: tuple[Part, ...]
    messages: int = 0  # how many were given, when a part of each is not sure (a template may drop one)

    @property
    def ids(self) -> list[int]:
        return [i for part in self.parts for i in part.ids]

    @property
    def text(self) -> str:
        return "".join(part.text for part in self.parts)

    @property
    def count(self) -> int:
        return sum(len(part.ids) for part in self.parts)

    def message_counts(self) -> list[int]:
        """Tokens of each message, its framing included; the tools' definitions are counted apart
        (`tools_count`) even where a format writes them inside a message (chatml's system
        message), and the reply priming belongs to none: messages + tools + priming = count."""
        counts = [0] * max(self.messages, 1 + max((p.message for p in self.parts if p.message is not None), default=-1))
        for part in self.parts:
            if part.message is not None and not part.tools:
                counts[part.message] += len(part.ids)
        return counts

    @property
    def overhead(self) -> int:
        """Tokens the format adds: everything but the messages' content and the tools."""
        return sum(len(part.ids) for part in self.parts if part.framing and not part.tools)

    @property
    def tools_count(self) -> int:
        """Tokens of the tools' definitions (wherever the format writes them)."""
        return sum(len(part.ids) for part in self.parts if part.tools)

    def tokens(self, limit: int | None = None) -> list[Token]:
        """Tokens of the whole prompt (or of its parts until `limit` tokens are reached), ranges
        into `text`, framing specials marked special."""
        tokens: list[Token] = []
        offset = 0
        for part in self.parts:
            if limit is not None and len(tokens) >= limit:
                break
            if part.tokens is not None:
                tokens += [t._replace(start=t.start + offset, end=t.end + offset) for t in part.tokens]
            elif part.special:
                tokens.append(Token(part.ids[0], part.text.encode("utf-8"), offset, offset + len(part.text), True))
            elif part.ids:
                tokens += [
                    Token(t.id, t.bytes, t.start + offset, t.end + offset, t.special)
                    for t in self.tokenizer.tokens_of(part.text, list(part.ids))
                ]
            offset += len(part.text)
        return tokens


def encoded_parts(tokenizer: Tokenizer, pieces: Sequence) -> list[Part]:
    """One encode of the pieces' joined text (each piece has `text`, `message`, `framing` and
    maybe `tools`), as a model reads it: each token goes to the piece holding its last
    character, and a part is a run of tokens whose pieces agree on message, framing and tools.
    For formats that encode framing and content together (harmony, mistral)."""
    text = "".join(p.text for p in pieces)
    if not text:
        return []
    tokens = tokenizer.tokens_of(text, tokenizer.encode(text))
    starts, at = [], 0
    for piece in pieces:
        starts.append(at)
        at += len(piece.text)

    def kind(index: int) -> tuple:
        piece = pieces[index]
        return piece.message, piece.framing, getattr(piece, "tools", False)

    runs: list[tuple[int, list]] = []  # (piece index, its tokens)
    for token in tokens:
        owner = max(0, bisect_right(starts, max(token.start, token.end - 1)) - 1)
        if runs and kind(runs[-1][0]) == kind(owner):
            runs[-1][1].append(token)
        else:
            runs.append((owner, [token]))
    parts = []
    for n, (owner, run) in enumerate(runs):
        start = 0 if n == 0 else run[0].start
        end = len(text) if n == len(runs) - 1 else runs[n + 1][1][0].start
        shifted = tuple(t._replace(start=t.start - start, end=t.end - start) for t in run)
        message, framing, tools = kind(owner)
        parts.append(Part(text[start:end], tuple(t.id for t in run), message, framing, tokens=shifted, tools=tools))
    return parts

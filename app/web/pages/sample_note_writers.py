"""One function per sample that writes what the sample shows for one tokenizer (`NOTES`: sample key ->
writer), from that tokenizer's own tokens, ids, bytes and special tokens, and `Cuts`, the tokens of a text
and which of them cover a stretch of it, that the writers share. Every number and claim in a note comes
from encoding the sample here. Leaves out caching and the pages (sample_notes.py) and markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from app.tokenizers.base import Tokenizer
from app.tokenizers.tokens import Token
from app.web.markup.number import num
from app.web.pages.samples import FAMILY, GLITCH

ENDOFTEXT = "<|endoftext|>"
FIM = ("<|fim_prefix|>", "<|fim_suffix|>")


class Cuts:
    """The tokens of one text, and which of them cover a stretch of it."""

    def __init__(self, tokenizer: Tokenizer, text: str, allow_special: bool = False):
        self.text = text
        self.tokens = tokenizer.tokenize(text, allow_special)

    def over(self, start: int, end: int) -> list[Token]:
        """The tokens that hold any character of text[start:end]."""
        return [t for t in self.tokens if t.start < end and t.end > start]

    def pieces(self, start: int, end: int) -> list[str]:
        """text[start:end] as the tokens cut it (tokens that share one character show it once)."""
        ranges = dict.fromkeys((max(t.start, start), min(t.end, end)) for t in self.over(start, end))
        return [self.text[a:b] for a, b in ranges]

    def split_chars(self, start: int, end: int) -> int:
        """How many characters of text[start:end] are spread over more than one token (byte pieces)."""
        holders = [0] * (end - start)
        for t in self.over(start, end):
            for i in range(max(t.start, start), min(t.end, end)):
                holders[i - start] += 1
        return sum(1 for count in holders if count > 1)


def tokens(count: int) -> str:
    return f"{num(count)} token{'' if count == 1 else 's'}"


def cut(pieces: list[str]) -> str:
    return "|".join(piece.replace("\t", "\\t").replace("\n", "\\n") for piece in pieces)


def listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _arithmetic(tokenizer: Tokenizer, text: str) -> str:
    cuts = Cuts(tokenizer, text)
    first: dict[str, list[str]] = {}  # each number -> its pieces where it first occurs, in the text's order
    for match in re.finditer(r"[0-9]+", text):
        first.setdefault(match.group(), cuts.pieces(*match.span()))
    a, b = first["127"], first["1275"]
    said = f'"127" is {tokens(len(a))}{f" ({cut(a)})" if len(a) > 1 else ""} and "1275" is {tokens(len(b))}'
    said += f" ({cut(b)})." if len(b) > 1 else "."
    lengths = {digits: [len(p) for p in pieces] for digits, pieces in first.items()}
    # the example: the longest number of up to 7 digits that thousands would group otherwise
    example = max((d for d in first if 3 < len(d) <= 7 and len(d) % 3), key=len, default=max(first, key=len))
    shown = f"{example} is {cut(first[example])}"
    if all(n == 1 for ns in lengths.values() for n in ns):
        why = "Every digit is its own token here, so a number costs one token per digit, the same way in every number."
    elif all(ns == _threes(len(d), from_left=True) for d, ns in lengths.items()):
        why = (
            f"Runs of digits are cut into groups of up to three from the left: {shown}, "
            f"not {cut(_thousands(example))} as we group thousands."
        )
    elif all(ns == _threes(len(d), from_left=False) for d, ns in lengths.items()):
        why = f"Runs of digits are cut into groups of up to three from the right, as we group thousands: {shown}."
    elif all(_on_threes(ns) for ns in lengths.values()):
        inner = next(
            (d for d, ns in lengths.items() if ns != _threes(len(d), True) and d not in ("127", "1275")), example
        )
        why = f"Every third digit from the left is a cut, with more cuts inside the groups: {inner} is {cut(first[inner])}."
    else:  # two numbers of the same length cut differently (the shortest such pair), or the example
        same = sorted(
            ((x, y) for x in first for y in first if len(x) == len(y) > 3 and lengths[x] != lengths[y]),
            key=lambda pair: len(pair[0]),
        )
        if same:
            (x, y), *_ = same
            shown = f"{x} is {cut(first[x])} but {y} is {cut(first[y])}"
        elif len(first[example]) == 1:
            shown = f"{example} is not cut at all"
        why = f"Digits are merged by frequency here, with no fixed rule: {shown}."
    return f"{said} {why}"


def _threes(length: int, from_left: bool) -> list[int]:
    rest = [length % 3] if length % 3 else []
    return [3] * (length // 3) + rest if from_left else rest + [3] * (length // 3)


def _thousands(digits: str) -> list[str]:
    head = len(digits) % 3 or 3
    return [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]


def _on_threes(lengths: list[int]) -> bool:
    """Whether every third digit from the left starts a piece."""
    starts = {sum(lengths[:i]) for i in range(len(lengths))}
    return all(i in starts for i in range(3, sum(lengths), 3))


def _case(tokenizer: Tokenizer, text: str) -> str:
    cuts = Cuts(tokenizer, text)
    line = text.split("\n", 1)[0]
    costs: dict[str, int] = {}
    for match in re.finditer(r" (\S+)", line):  # each casing with the space before it
        costs[match.group()] = len(cuts.over(match.start(), match.end()))
    (first, n), *rest = costs.items()
    said = f'"{first}" is {tokens(n)} here, ' + listed([f'"{word}" {num(count)}' for word, count in rest]) + "."
    top = max(costs.values())
    most = [f'"{word}"' for word, count in costs.items() if count == top]
    if len(most) == len(costs):
        return f"{said} All {len(costs)} casings cost the same here."
    verb = "is" if len(most) == 1 else "are"
    why = "each casing is a different string of bytes, cut on its own"
    return f"{said} {listed(most)} {verb} the most expensive: {why}."


def _scripts(tokenizer: Tokenizer, text: str) -> str:
    cuts = Cuts(tokenizer, text)
    spans = {}
    for match in re.finditer(r"^(English|Korean|Hindi): (.*)$", text, flags=re.MULTILINE):
        spans[match.group(1)] = match.span(2)
    rate = {lang: len(cuts.over(a, b)) / (b - a) for lang, (a, b) in spans.items()}
    times = {lang: rate[lang] / rate["English"] for lang in ("Korean", "Hindi")}
    said = (
        f"English takes {rate['English']:.2f} tokens per character here, Korean {rate['Korean']:.2f} and Hindi "
        f"{rate['Hindi']:.2f}: {times['Korean']:.1f} and {times['Hindi']:.1f} times as many."
    )
    split = {lang: cuts.split_chars(*spans[lang]) for lang in ("Korean", "Hindi")}
    cut_up = [lang for lang, n in split.items() if n]
    if not cut_up:
        return f"{said} No Korean or Hindi character is cut into byte pieces here."
    parts = [f"{num(split[lang])} of the {num(spans[lang][1] - spans[lang][0])} {lang}" for lang in cut_up]
    whole = [lang for lang in split if lang not in cut_up]
    rest = f"; no {whole[0]} one is" if whole else ""
    verb = "is" if len(cut_up) == 1 and split[cut_up[0]] == 1 else "are"
    return f"{said} {listed(parts)} characters {verb} cut into byte pieces over several tokens{rest}."


def _code(tokenizer: Tokenizer, text: str) -> str:
    cuts = Cuts(tokenizer, text)
    deepest = max(re.finditer(r"^( +)(\S.*)$", text, flags=re.MULTILINE), key=lambda m: len(m.group(1)))
    a, b = deepest.span(1)
    covering = cuts.over(a, b)
    riders = [t for t in covering if t.end > b]  # the token that also starts the line's text
    said = f"The {num(b - a)} spaces that indent {deepest.group(2)} take {tokens(len(covering) - len(riders))} of their own here"
    if len(covering) == len(riders):
        said = f"The {num(b - a)} spaces that indent {deepest.group(2)} have no token of their own here, only one shared with the text after them"
    elif riders:
        rider = riders[0]
        carried = b - max(rider.start, a)
        last = "the last one rides" if carried == 1 else f"the last {num(carried)} ride"
        said += f', and {last} on "{cut([text[max(rider.start, a) : rider.end]])}"'
    tab = text.index("\t")
    (holder,) = cuts.over(tab, tab + 1)  # one byte: one token
    if holder.bytes == b"\t":
        said += "; the tab is a token of its own."
    else:
        said += f'; the tab is part of the token "{cut([text[holder.start : holder.end]])}".'
    blank = sum(1 for t in cuts.tokens if t.bytes and not t.bytes.strip(b" \t\r\n"))
    return f"{said} In all, {num(blank)} of the {tokens(len(cuts.tokens))} are only whitespace."


def _emoji(tokenizer: Tokenizer, text: str) -> str:
    cuts = Cuts(tokenizer, text)
    start = text.index(FAMILY)
    covering = cuts.over(start, start + len(FAMILY))
    said = f"The family emoji is {num(len(FAMILY))} code points and {num(len(FAMILY.encode()))} UTF-8 bytes"
    if len(covering) == 1:
        return f"{said}; here it is a single token."
    partial = sum(1 for t in covering if t.is_partial)
    pieces = (
        "each a whole character or more"
        if not partial
        else "all of them byte pieces, not whole characters"
        if partial == len(covering)
        else f"{num(partial)} of them byte pieces, not whole characters"
    )
    return f"{said}; here it takes {tokens(len(covering))}, {pieces}. The page shows them as one segment."


def _trailing(tokenizer: Tokenizer, text: str) -> str:
    cuts = Cuts(tokenizer, text)
    last = cuts.tokens[-1]
    if last.bytes == b" ":
        said = f"The last line ends in a lone space token (id {last.id})."
    else:
        said = f'The last line\'s trailing space is part of the token "{cut([text[last.start : last.end]])}".'
    space = text.index(" Paris")
    word = cuts.over(space, space + len(" Paris"))
    head = word[0]
    if head.bytes == b" ":
        return f'{said} Before "Paris" too the space is a token of its own, so a trailing space cuts where this tokenizer cuts anyway.'
    if head.start > space or not head.bytes.startswith(b" "):
        return f'{said} The space before "Paris" belongs to the token "{cut([text[head.start : head.end]])}".'
    if len(word) == 1:
        shown = f'" Paris" is one token with its space (id {head.id})'
    else:
        shown = f'" Paris" is {tokens(len(word))} ({cut(cuts.pieces(space, space + 6))}), the space inside the first'
    return f"{said} {shown}: a prompt that ends in a space pushes the model towards a rarer split."


def _special(tokenizer: Tokenizer, text: str) -> str:
    at = text.index(ENDOFTEXT)
    plain = Cuts(tokenizer, text).over(at, at + len(ENDOFTEXT))
    said = f"As plain text, {ENDOFTEXT} is {tokens(len(plain))}."
    if ENDOFTEXT not in tokenizer.special_tokens:  # (not encoded: a Hugging Face one would load a second copy)
        return f"{said} This tokenizer has no {ENDOFTEXT} special token, so it stays text even with Special tokens on."
    special = Cuts(tokenizer, text, allow_special=True)

    def single(string: str) -> Token | None:
        where = text.index(string)
        held = special.over(where, where + len(string))
        return held[0] if len(held) == 1 and held[0].special else None

    if (token := single(ENDOFTEXT)) is not None:
        known = [s for s in FIM if single(s) is not None]
        also = f", and {listed(known)} {'is' if len(known) == 1 else 'are'} single ids too" if known else ""
        return f"{said} Turn on Special tokens and it is one reserved id, {token.id}{also}."
    return f"{said} It is a special token of this tokenizer, but Special tokens does not turn the text into it."


def _hidden(tokenizer: Tokenizer, text: str) -> str:
    cuts = Cuts(tokenizer, text)

    def cost(char: str) -> str:
        at = text.index(char)
        covering = cuts.over(at, at + 1)
        shared = any(t.start < at or t.end > at + 1 for t in covering)
        return f"{tokens(len(covering))}{' (shared with its neighbours)' if shared else ''}"

    return (
        f"The zero-width space takes {cost(chr(0x200B))} here and the right-to-left override "
        f"{cost(chr(0x202E))}, though neither shows on screen. The page shows each as a visible escape."
    )


def _glitch(tokenizer: Tokenizer, text: str) -> str:
    cuts = Cuts(tokenizer, text)
    space = text.index(" " + GLITCH)
    word = cuts.over(space + 1, space + 1 + len(GLITCH))
    if len(word) == 1 and word[0].start <= space:
        said = f'Here " {GLITCH}", space included, is one token: id {word[0].id}.'
        lecture = (
            "The lecture's point: this Reddit username was frequent in the tokenizer's training text but "
            "almost absent from the model's, so its token's embedding was barely trained and the model "
            "went erratic when it met it."
        )
    else:
        said = f'Here "{GLITCH}" is {tokens(len(word))}' + (
            f" ({cut(cuts.pieces(space + 1, space + 1 + len(GLITCH)))})." if len(word) > 1 else "."
        )
        lecture = (
            "The lecture's glitch needs one token for it: the Reddit username was frequent in a tokenizer's "
            "training text but almost absent from the model's, so that token's embedding stayed barely "
            "trained and the model went erratic on it."
        )
    return f"{said} {lecture}"


NOTES: dict[str, Callable[[Tokenizer, str], str]] = {
    "arithmetic": _arithmetic,
    "case": _case,
    "scripts": _scripts,
    "code": _code,
    "emoji": _emoji,
    "trailing": _trailing,
    "special": _special,
    "hidden": _hidden,
    "glitch": _glitch,
}

"""The sample notes (app/web/pages/sample_notes.py) are true for the tokenizer they describe.

For every registered tokenizer (the built-ins, plus two user tokenizers: one of bare bytes
and one BPE trained with no split pattern, whose tokens run across words) and every
sample, the note builds, and every claim in it is checked against this test's own
recomputation from `encode_with_pieces` (the exact bytes of the text each id stands for,
walked by byte offset: a different path from the character ranges the notes use). Each
checked claim is cut out of the note; a digit left over is a number nobody checked, so a
note that hard-codes a number fails here (and a hard-coded number that happens to be right
for one tokenizer is wrong for another of the twelve).
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlencode

import pytest

from app.bpe.model import BPETokenizer
from app.settings import Settings
from app.tokenizers.registry import default_registry
from app.web.pages import sample_note_writers, sample_notes
from app.web.pages.common import MAX_QUERY_CHARS
from app.web.pages.sample_notes import build_note, note_for
from app.web.pages.samples import BY_KEY, FAMILY, GLITCH, SAMPLES
from tests.reference import BUILTIN_NAMES

USER_NAMES = ["user_bytes", "user_wide"]
NAMES = [*BUILTIN_NAMES, *USER_NAMES]
N = r"(\d[\d,]*)"  # a count as the pages write it (1,234)


@pytest.fixture(scope="module")
def notes_registry(tmp_path_factory):
    registry = default_registry(Settings(data_dir=tmp_path_factory.mktemp("notes-data")))
    registry.user_model_path("user_bytes").parent.mkdir(parents=True, exist_ok=True)
    BPETokenizer({}, pattern_name="none", name="user_bytes").save(registry.user_model_path("user_bytes"))
    corpus = "".join(sample.text for sample in SAMPLES) * 3
    BPETokenizer.train(corpus, 700, pattern="none", name="user_wide").save(registry.user_model_path("user_wide"))
    return registry


class Recount:
    """One tokenizer's tokens of one text, as byte ranges, and what covers a stretch of characters."""

    def __init__(self, tokenizer, text: str, allow_special: bool = False):
        self.text = text
        self.ids, pieces = tokenizer.encode_with_pieces(text, allow_special)
        assert b"".join(pieces) == text.encode()
        self.spans, offset = [], 0  # (id, first byte, end byte, bytes)
        for token_id, piece in zip(self.ids, pieces, strict=True):
            self.spans.append((token_id, offset, offset + len(piece), piece))
            offset += len(piece)

    def byte_at(self, char: int) -> int:
        return len(self.text[:char].encode())

    def over(self, start: int, end: int) -> list[tuple]:
        a, b = self.byte_at(start), self.byte_at(end)
        return [span for span in self.spans if span[1] < b and span[2] > a]

    def pieces(self, start: int, end: int) -> list[str]:
        """The characters of text[start:end] each covering token holds (byte pieces of one character: once)."""
        a, b = self.byte_at(start), self.byte_at(end)
        seen = []
        for _, first, last, _ in self.over(start, end):
            lo, hi = max(first, a), min(last, b)
            lo = max(c for c in range(start, end + 1) if self.byte_at(c) <= lo)
            hi = min(c for c in range(start, end + 1) if self.byte_at(c) >= hi)
            if not seen or seen[-1] != (lo, hi):
                seen.append((lo, hi))
        return [self.text[lo:hi] for lo, hi in seen]


class Claims:
    """A note, with each claim cut out once it is checked."""

    def __init__(self, note: str):
        self.note = self.rest = note

    def take(self, pattern: str, required: bool = True) -> list[re.Match]:
        found = list(re.finditer(pattern, self.rest))
        assert found or not required, f"no {pattern!r} in {self.note!r}"
        self.rest = re.sub(pattern, "§", self.rest)
        return found

    def done(self) -> None:
        assert not re.search(r"\d", self.rest), f"unchecked numbers in {self.note!r} (left: {self.rest!r})"


def count(text: str) -> int:
    return int(text.replace(",", ""))


def tokens(n: int) -> str:
    return f"{n:,} token{'' if n == 1 else 's'}"


# ---------------------------------------------------------------------------------------
# One check per sample.


def check_arithmetic(tokenizer, text, claims):
    recount = Recount(tokenizer, text)
    first = {}
    for match in re.finditer(r"[0-9]+", text):
        first.setdefault(match.group(), recount.pieces(*match.span()))
    for number in ("127", "1275"):
        pieces = first[number]
        (said,) = claims.take(rf'"{number}" is {tokens(len(pieces))}(?: \(([0-9|]+)\))?')
        assert said.group(1) == ("|".join(pieces) if len(pieces) > 1 else None)
    pair = re.search(r"([0-9]+) is [0-9|]+ but ([0-9]+) is", claims.note)
    for match in claims.take(r"\b([0-9]+) is ([0-9|]+)", required=False):  # every example shown
        assert match.group(2).split("|") == first[match.group(1)], match.group()
    lengths = {d: [len(p) for p in pieces] for d, pieces in first.items()}

    def threes(d: str) -> list[int]:
        return [3] * (len(d) // 3) + [len(d) % 3] * bool(len(d) % 3)

    def on_threes(ns: list[int]) -> bool:
        starts = {sum(ns[:i]) for i in range(len(ns))}
        return all(i in starts for i in range(3, sum(ns), 3))

    rules = {  # the first rule that holds is the one the note must name
        "Every digit is its own token": all(n == 1 for ns in lengths.values() for n in ns),
        "groups of up to three from the left": all(ns == threes(d) for d, ns in lengths.items()),
        "groups of up to three from the right": all(ns == threes(d)[::-1] for d, ns in lengths.items()),
        "Every third digit from the left is a cut": all(on_threes(ns) for ns in lengths.values()),
        "no fixed rule": True,
    }
    named = [rule for rule in rules if claims.take(re.escape(rule), required=False)]
    assert named == [next(rule for rule, holds in rules.items() if holds)], claims.note
    for thousands in claims.take(r"not ([0-9|]+) as we group thousands", required=False):
        digits = thousands.group(1).replace("|", "")
        assert thousands.group(1) == f"{int(digits):,}".replace(",", "|")
    if pair is not None:  # two numbers of one length, cut differently
        x, y = pair.groups()
        assert len(x) == len(y) and lengths[x] != lengths[y]
    for whole in claims.take(r"([0-9]+) is not cut at all", required=False):
        assert len(first[whole.group(1)]) == 1


def check_case(tokenizer, text, claims):
    recount = Recount(tokenizer, text)
    line = text.split("\n", 1)[0]
    costs = {m.group(): len(recount.over(*m.span())) for m in re.finditer(r" \S+", line)}
    said = {m.group(1): count(m.group(2)) for m in claims.take(rf'"( \w+)" (?:is )?{N}(?= token|,| and|\.)')}
    assert said == costs
    top = max(costs.values())
    most = claims.take(r'((?:" \w+"(?:, | and )?)+) (?:is|are) the most expensive', required=False)
    if most:
        assert set(re.findall(r'"( \w+)"', most[0].group(1))) == {w for w, n in costs.items() if n == top}
    else:
        (same,) = claims.take(rf"All {N} casings cost the same")
        assert count(same.group(1)) == len(costs) and len(set(costs.values())) == 1
    assert "most expensive" not in claims.rest


def check_scripts(tokenizer, text, claims):
    recount = Recount(tokenizer, text)
    spans = {m.group(1): m.span(2) for m in re.finditer(r"^(English|Korean|Hindi): (.*)$", text, re.MULTILINE)}
    rate = {lang: len(recount.over(a, b)) / (b - a) for lang, (a, b) in spans.items()}
    (said,) = claims.take(
        r"English takes (\S+) tokens per character here, Korean (\S+) and Hindi (\S+): (\S+) and (\S+) times"
    )
    assert said.groups() == (
        f"{rate['English']:.2f}",
        f"{rate['Korean']:.2f}",
        f"{rate['Hindi']:.2f}",
        f"{rate['Korean'] / rate['English']:.1f}",
        f"{rate['Hindi'] / rate['English']:.1f}",
    )
    split = {}
    for lang, (a, b) in spans.items():
        holders = [len(recount.over(i, i + 1)) for i in range(a, b)]
        split[lang] = sum(1 for n in holders if n > 1)
    for match in claims.take(rf"{N} of the {N} (Korean|Hindi)", required=False):
        lang = match.group(3)
        assert (count(match.group(1)), count(match.group(2))) == (split[lang], spans[lang][1] - spans[lang][0])
        assert split[lang] > 0
    if claims.take(r"No Korean or Hindi character is cut", required=False):
        assert split["Korean"] == split["Hindi"] == 0
    for match in claims.take(r"no (Korean|Hindi) one is", required=False):
        assert split[match.group(1)] == 0


def check_code(tokenizer, text, claims):
    recount = Recount(tokenizer, text)
    deepest = max(re.finditer(r"^( +)(\S.*)$", text, re.MULTILINE), key=lambda m: len(m.group(1)))
    a, b = deepest.span(1)
    covering = recount.over(a, b)
    riders = [s for s in covering if s[2] > recount.byte_at(b)]
    (spaces,) = claims.take(rf"The {N} spaces that indent ")
    assert count(spaces.group(1)) == b - a
    if claims.take(r"have no token of their own here", required=False):
        assert len(riders) == len(covering)
    else:
        (own,) = claims.take(rf"take {N} tokens? of their own")
        assert count(own.group(1)) == len(covering) - len(riders)
    for ride in claims.take(r'the last (one|\S+) rides? on "(.*?)"', required=False):
        _, first_byte, _, held = riders[0]
        carried = recount.byte_at(b) - max(first_byte, recount.byte_at(a))  # spaces are one byte each
        assert ride.group(1) == ("one" if carried == 1 else str(carried))
        shown = held[max(0, recount.byte_at(a) - first_byte) :].decode(errors="replace")
        assert ride.group(2) == shown.replace("\t", "\\t").replace("\n", "\\n")
    tab = text.index("\t")
    (holder,) = recount.over(tab, tab + 1)
    if claims.take(r"the tab is a token of its own", required=False):
        assert holder[3] == b"\t"
    else:
        (part,) = claims.take(r'the tab is part of the token "(.*?)"')
        assert part.group(1) == holder[3].decode().replace("\t", "\\t").replace("\n", "\\n")
    (blank,) = claims.take(rf"In all, {N} of the {N} tokens are only whitespace")
    assert count(blank.group(1)) == sum(1 for s in recount.spans if s[3] and not s[3].strip(b" \t\r\n"))
    assert count(blank.group(2)) == len(recount.ids)


def check_emoji(tokenizer, text, claims):
    recount = Recount(tokenizer, text)
    start = text.index(FAMILY)
    covering = recount.over(start, start + len(FAMILY))
    (size,) = claims.take(rf"The family emoji is {N} code points and {N} UTF-8 bytes")
    assert (count(size.group(1)), count(size.group(2))) == (len(FAMILY), len(FAMILY.encode()))
    if claims.take(r"here it is a single token", required=False):
        assert len(covering) == 1
        return
    (took,) = claims.take(rf"here it takes {N} tokens, (all|{N} of them|each a whole)")
    assert count(took.group(1)) == len(covering)
    partial = 0
    for span in covering:
        try:
            span[3].decode()
        except UnicodeDecodeError:
            partial += 1
    expected = "all" if partial == len(covering) else "each a whole" if not partial else f"{partial:,} of them"
    assert took.group(2) == expected


def check_trailing(tokenizer, text, claims):
    recount = Recount(tokenizer, text)
    last = recount.spans[-1]
    lone = claims.take(r"ends in a lone space token \(id (\d+)\)", required=False)
    assert bool(lone) == (last[3] == b" ")
    if lone:
        assert int(lone[0].group(1)) == last[0]
    else:
        (part,) = claims.take(r'trailing space is part of the token "(.*?)"\.')
        assert part.group(1) == last[3].decode().replace("\n", "\\n").replace("\t", "\\t") and last[3].endswith(b" ")
    at = text.index(" Paris")
    word = recount.over(at, at + len(" Paris"))
    for one in claims.take(r'" Paris" is one token with its space \(id (\d+)\)', required=False):
        assert len(word) == 1 and word[0][3] == b" Paris" and int(one.group(1)) == word[0][0]
    for several in claims.take(rf'" Paris" is {N} tokens \((.*?)\), the space inside the first', required=False):
        assert count(several.group(1)) == len(word) and word[0][3].startswith(b" ") and len(word[0][3]) > 1
        assert several.group(2) == "|".join(recount.pieces(at, at + len(" Paris")))
    if "rarer split" in claims.note:
        assert word[0][3].startswith(b" ") and word[0][3] != b" "
    if 'Before "Paris" too the space is a token of its own' in claims.note:
        assert word[0][3] == b" "
    for owner in claims.take(r'The space before "Paris" belongs to the token "(.*?)"', required=False):
        assert owner.group(1) == word[0][3].decode().replace("\n", "\\n") and not word[0][3].startswith(b" ")


def check_special(tokenizer, text, claims):
    at = text.index("<|endoftext|>")
    plain = Recount(tokenizer, text).over(at, at + len("<|endoftext|>"))
    (said,) = claims.take(rf"As plain text, <\|endoftext\|> is {N} tokens?")
    assert count(said.group(1)) == len(plain)
    special_ids = tokenizer.encode(text, allow_special=True)
    reserved = claims.take(r"it is one reserved id, (\d+)", required=False)
    if reserved:
        token_id = int(reserved[0].group(1))
        assert tokenizer.special_tokens["<|endoftext|>"] == token_id and token_id in special_ids
    else:
        assert tokenizer.special_tokens.get("<|endoftext|>") not in special_ids
    if "has no <|endoftext|> special token" in claims.note:
        assert "<|endoftext|>" not in tokenizer.special_tokens
    for name in ("<|fim_prefix|>", "<|fim_suffix|>"):
        if name in claims.note:
            assert tokenizer.special_tokens[name] in special_ids


def check_hidden(tokenizer, text, claims):
    recount = Recount(tokenizer, text)
    for label, char in (("zero-width space takes", "\u200b"), ("right-to-left override", "\u202e")):
        (said,) = claims.take(rf"{label} {N} tokens?( \(shared with its neighbours\))?")
        at = text.index(char)
        covering = recount.over(at, at + 1)
        assert count(said.group(1)) == len(covering)
        a, b = recount.byte_at(at), recount.byte_at(at + 1)
        assert bool(said.group(2)) == any(first < a or last > b for _, first, last, _ in covering)


def check_glitch(tokenizer, text, claims):
    recount = Recount(tokenizer, text)
    at = text.index(" " + GLITCH)
    word = recount.over(at + 1, at + 1 + len(GLITCH))
    one = claims.take(r"space included, is one token: id (\d+)", required=False)
    if one:
        assert len(word) == 1 and word[0][3] == f" {GLITCH}".encode() and int(one[0].group(1)) == word[0][0]
    else:
        (said,) = claims.take(rf'"{GLITCH}" is {N} tokens? ?\(?([^)]*)\)?\.')
        assert count(said.group(1)) == len(word)
        assert said.group(2) == "|".join(recount.pieces(at + 1, at + 1 + len(GLITCH))) or len(word) == 1
    assert "Reddit username" in claims.note and "embedding" in claims.note


CHECKS = {
    "arithmetic": check_arithmetic,
    "case": check_case,
    "scripts": check_scripts,
    "code": check_code,
    "emoji": check_emoji,
    "trailing": check_trailing,
    "special": check_special,
    "hidden": check_hidden,
    "glitch": check_glitch,
}


# ---------------------------------------------------------------------------------------


def test_every_sample_has_a_check_and_fits_a_link():
    assert set(CHECKS) == {sample.key for sample in SAMPLES} == set(sample_notes.NOTES)
    for sample in SAMPLES:
        assert len(urlencode({"tokenizer": "o200k_base", "text": sample.text}, quote_via=quote)) < MAX_QUERY_CHARS / 2


@pytest.mark.parametrize("name", NAMES)
def test_notes_are_true_for_the_tokenizer(notes_registry, name):
    tokenizer = notes_registry.get(name)
    for sample in SAMPLES:
        note = build_note(sample, tokenizer)
        assert 0 < len(note) < 400, note
        assert note.count(". ") <= 2, f"more than two sentences: {note!r}"
        claims = Claims(note)
        CHECKS[sample.key](tokenizer, sample.text, claims)
        claims.done()


def test_the_issue_examples(notes_registry):
    """The figures the issue named, written out: the notes must carry them."""
    registry = notes_registry
    case = build_note(BY_KEY["case"], registry.get("cl100k_base"))
    assert '" HELLO" 2' in case and '" hElLo" 3' in case and '" hElLo" is the most expensive' in case
    arithmetic = {
        name: build_note(BY_KEY["arithmetic"], registry.get(name)) for name in ("gpt2", "cl100k_base", "mistral_v1")
    }
    assert arithmetic["gpt2"].startswith('"127" is 1 token and "1275" is 2 tokens (12|75).')
    assert arithmetic["cl100k_base"].startswith('"127" is 1 token and "1275" is 2 tokens (127|5). Runs of digits')
    assert arithmetic["mistral_v1"].startswith(
        '"127" is 3 tokens (1|2|7) and "1275" is 4 tokens (1|2|7|5). Every digit'
    )
    glitch = build_note(BY_KEY["glitch"], registry.get("gpt2"))
    assert "is one token: id 43453." in glitch
    code = {name: build_note(BY_KEY["code"], registry.get(name)) for name in ("gpt2", "cl100k_base")}
    assert "take 11 tokens of their own" in code["gpt2"] and "take 1 token of their own" in code["cl100k_base"]


def test_only_the_exact_sample_text_gets_a_note(notes_registry):
    tokenizer = notes_registry.get("gpt2")
    assert note_for(BY_KEY["case"].text, tokenizer) == build_note(BY_KEY["case"], tokenizer)
    assert note_for(BY_KEY["case"].text + " ", tokenizer) is None
    assert note_for("hello", tokenizer) is None


def test_a_replaced_user_tokenizer_gets_a_fresh_note(notes_registry):
    path = notes_registry.user_model_path("user_swap")
    text = BY_KEY["glitch"].text
    BPETokenizer({}, pattern_name="none", name="user_swap").save(path)
    entry = {e.name: e for e in notes_registry.entries()}["user_swap"]
    before = note_for(text, notes_registry.get("user_swap"), entry.version)
    assert f"is {len(GLITCH)} tokens" in before
    BPETokenizer.train(f"the {GLITCH} " * 50, 300, pattern="gpt2", name="user_swap").save(path)  # same name
    entry = {e.name: e for e in notes_registry.entries()}["user_swap"]
    after = note_for(text, notes_registry.get("user_swap"), entry.version)
    assert after == build_note(BY_KEY["glitch"], notes_registry.get("user_swap")) != before
    assert "is one token" in after


def test_the_cache_is_keyed_by_the_tokenizer_object_and_bounded():
    text = BY_KEY["case"].text
    one = BPETokenizer({}, pattern_name="none", name="same")
    other = BPETokenizer.train(text * 20, 300, pattern="gpt2", name="same")
    assert note_for(text, one) != note_for(text, other)  # same name, same (no) version: not confused
    assert note_for(text, one) == build_note(BY_KEY["case"], one)
    for i in range(sample_notes.CACHE_SIZE + 10):
        note_for(text, one, version=i)
    assert len(sample_notes._cache) <= sample_notes.CACHE_SIZE


def test_a_tokenizer_the_notes_cannot_read_gets_no_note_not_an_error():
    class Broken(BPETokenizer):
        def encode(self, text, allow_special=False):
            raise RuntimeError("a damaged model")

    assert note_for(BY_KEY["code"].text, Broken({}, pattern_name="none", name="broken")) is None


HARD_CODED = {  # notes written as fixed text: each is wrong for some tokenizer, and this file must say so
    "case": '" hello" is 1 token here, " Hello" 1, " HELLO" 2 and " hElLo" 3. " hElLo" is the most expensive: bytes.',
    "glitch": f'Here " {GLITCH}", space included, is one token: id 43453. A Reddit username; its embedding.',
    "emoji": "The family emoji is 7 code points and 25 UTF-8 bytes; here it takes 14 tokens, all of them byte pieces.",
}


@pytest.mark.parametrize("key", HARD_CODED)
def test_a_hard_coded_note_fails_the_check(notes_registry, key, monkeypatch):
    monkeypatch.setitem(sample_notes.NOTES, key, lambda tokenizer, text: HARD_CODED[key])
    failed = []
    for name in ("gpt2", "cl100k_base", "mistral_v1", "user_bytes"):
        claims = Claims(build_note(BY_KEY[key], notes_registry.get(name)))
        try:
            CHECKS[key](notes_registry.get(name), BY_KEY[key].text, claims)
            claims.done()
        except AssertionError:
            failed.append(name)
    assert failed, f"the fixed {key} note passed for every tokenizer"
    # and one more number than was checked is caught too
    monkeypatch.setitem(
        sample_notes.NOTES, "case", lambda tokenizer, text: sample_note_writers._case(tokenizer, text) + " 4 casings."
    )
    claims = Claims(build_note(BY_KEY["case"], notes_registry.get("gpt2")))
    check_case(notes_registry.get("gpt2"), BY_KEY["case"].text, claims)
    with pytest.raises(AssertionError, match="unchecked numbers"):
        claims.done()

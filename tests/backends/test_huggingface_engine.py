"""deepseek_v4 through our C engine (app/backends/huggingface/engine.py): the library's ids and
counts on real and random text in every script, the texts it leaves to the library (an added
token's string, a lone surrogate), and the files it is not built for."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.backends.huggingface.backend import HuggingFaceTokenizer
from app.backends.huggingface.engine import ListedMergesEngine
from app.backends.huggingface.pieces import byte_level_bytes
from app.bpe import _engine
from app.errors import InvalidInput
from app.tokenizers import budget as memory
from tests.bpe.test_pretokenize_deepseek import CASES
from tests.reference import HUGGINGFACE_FILES, TOKENIZER_DIR, huggingface_reference, stdlib_texts
from tokenizers import pre_tokenizers

MULTILINGUAL = (
    "Ελληνικά κείμενα, русский текст, العربية, हिन्दी में लिखा, 日本語の文章、中文，한국어 문장. "
    "naïve café — ÆØÅ 12,345.67 ١٢٣ १२३ 😀👍🏽 I'M HERE, we'll SEE'S\r\n\ttabs\u00a0and\u3000spaces\n\n  "
)


@pytest.fixture(scope="module")
def deepseek(registry):
    return registry.get("deepseek_v4")


def library_ids(text: str) -> list[int]:
    return huggingface_reference().encode(text, add_special_tokens=False).ids


def test_the_engine_is_built_for_deepseeks_file():
    engine = ListedMergesEngine.for_library(huggingface_reference())
    assert (
        engine is not None
        and engine.encode(MULTILINGUAL) == engine.encode_taken(MULTILINGUAL) == library_ids(MULTILINGUAL)
        and engine.count_taken(MULTILINGUAL) == len(library_ids(MULTILINGUAL))
    )


def test_real_text_in_every_script_gets_the_librarys_ids_and_counts(deepseek):
    texts = [text for _, text in stdlib_texts(8, 30_000)] + [MULTILINGUAL * 40, *CASES]
    for text in texts:
        expected = library_ids(text)
        assert deepseek.encode(text) == expected
        assert deepseek.count(text) == len(expected)
    assert deepseek.count_batch(texts) == [len(library_ids(text)) for text in texts]
    assert deepseek.encode_batch(texts) == [library_ids(text) for text in texts]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_gets_the_librarys_ids(deepseek, text):
    assert deepseek.encode(text) == library_ids(text)


@pytest.mark.parametrize("allow_special", [False, True])
def test_a_text_with_an_added_tokens_string_is_left_to_the_library(deepseek, allow_special):
    text = "before <think>reasoning</think> <｜end▁of▁sentence｜> after <|EOT|>"
    engine = ListedMergesEngine.for_library(huggingface_reference())
    assert engine is not None and engine.encode_taken(text) is None and engine.count_taken(text) is None
    expected = huggingface_reference(allow_special=allow_special).encode(text, add_special_tokens=False).ids
    assert deepseek.encode(text, allow_special) == expected
    assert deepseek.count_batch(["plain text", text], allow_special) == [len(library_ids("plain text")), len(expected)]
    batch = [text, "plain text", MULTILINGUAL, text + " again"]
    library = huggingface_reference(allow_special=allow_special)
    assert deepseek.encode_batch(batch, allow_special) == [
        library.encode(one, add_special_tokens=False).ids for one in batch
    ]


def test_a_lone_surrogate_is_refused_as_before(deepseek):
    with pytest.raises(InvalidInput):
        deepseek.count("a\ud800b")
    with pytest.raises(InvalidInput):
        deepseek.encode("a\ud800b")
    with pytest.raises(InvalidInput):
        deepseek.count_batch(["plain", "a\ud800b", "<think>"])
    with pytest.raises(InvalidInput):
        deepseek.encode_batch(["plain", "a\ud800b", "<think>"])
    engine = ListedMergesEngine.for_library(huggingface_reference())
    assert engine is not None and engine.held(["plain", "a\ud800b", "<think>", "x"]) == {1, 2}
    assert engine.encode_taken("a\ud800b") is None and engine.count_taken("a\ud800b") is None


def _file_with(change) -> bytes:
    config = json.loads(huggingface_reference().to_str())
    change(config)
    return json.dumps(config).encode()


def _swap_first_merges(config: dict) -> None:
    merges = config["model"]["merges"]
    merges[0], merges[1] = merges[1], merges[0]  # the second makes a lower id than the first now


@pytest.mark.parametrize(
    "change, engine",
    [
        (_swap_first_merges, False),
        (lambda config: config["model"].update(ignore_merges=True), False),
        (lambda config: config["pre_tokenizer"]["pretokenizers"].pop(0), False),
        (lambda config: config.update(normalizer=None), True),  # the same rules, said another way
    ],
    ids=["merges out of order", "ignore_merges", "another pre-tokenizer", "no normalizer entry"],
)
def test_other_files_are_left_to_the_library(change, engine):
    tokenizer = HuggingFaceTokenizer("other", "a changed copy", _file_with(change))
    expected = len(tokenizer.library.encode(MULTILINGUAL, add_special_tokens=False).ids)
    built = ListedMergesEngine.for_library(tokenizer.library)  # from the library's own serialization
    assert (built is not None) == (tokenizer._engine is not None) == engine  # and from the file's text
    assert tokenizer.count(MULTILINGUAL) == expected
    if built is not None:
        assert built.count_batch([MULTILINGUAL]) == [expected]


def test_another_library_version_than_the_builds_is_left_to_the_library(monkeypatch):
    monkeypatch.setattr(_engine, "DEEPSEEK_CLASSES_OF", "0.0.0")
    assert ListedMergesEngine.for_library(huggingface_reference()) is None


def _long_merges(config: dict) -> None:
    """DeepSeek's rules with a small vocabulary: the 256 bytes, runs of 2-256 a's, a(128)+b made
    (and so merged) before a(256), and a(256)+b and a(256)+c listed as a(256) and one letter."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet(), key=lambda char: byte_level_bytes(char) or b"")
    runs = [("a" * k, "a" * k) for k in (1, 2, 4, 8, 16, 32, 64)] + [("a" * 128, "b"), ("a" * 128, "a" * 128)]
    merges = [*runs, ("a" * 256, "b"), ("a" * 256, "c")]
    vocab = {char: n for n, char in enumerate(alphabet)}
    for left, right in merges:
        vocab[left + right] = len(vocab)
    config["model"].update(vocab=vocab, merges=[f"{left} {right}" for left, right in merges])
    config["added_tokens"] = []


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("a" * 256 + "c", 1),
        ("a" * 256 + "b", 2),
        ("a" * 256, 1),
        ("a" * 300 + "b", 5),
        ("xa" * 100 + " " + "a" * 256 + "c", 202),
    ],
)
def test_a_pair_split_past_255_bytes_merges_only_where_its_listed_merge_splits_it(text, tokens):
    """Listed merges whose left part is 255 bytes or more (their split checked apart from the
    shorter ones'): a(256) + c merges; a(128) + a(128)b spells a(256)b but is not its merge, and
    stays two tokens."""
    tokenizer = HuggingFaceTokenizer("long", "long merges", _file_with(_long_merges))
    built = ListedMergesEngine.for_library(tokenizer.library)
    assert built is not None
    expected = tokenizer.library.encode(text, add_special_tokens=False).ids
    assert built.encode(text) == expected
    assert len(expected) == tokens


def test_counting_builds_no_id_maps_and_the_first_token_view_does(monkeypatch):
    """Each id's string and bytes (`id_maps.py`) are made on first use: a count or an encode
    never reads them, the token view does, then they are the library's and the memory budget
    charges them to the tokenizer."""
    budget = memory.Budget(1 << 40, release=lambda: None)
    monkeypatch.setattr(memory, "_shared", budget)
    data = gzip.decompress((TOKENIZER_DIR / HUGGINGFACE_FILES["deepseek_v4"]).read_bytes())
    tokenizer = HuggingFaceTokenizer("deepseek_v4", "", data)
    budget.keep(tokenizer, 1000)
    assert tokenizer.count(MULTILINGUAL) == len(tokenizer.encode(MULTILINGUAL)) == len(library_ids(MULTILINGUAL))
    assert tokenizer.vocab_size == 129_280 and tokenizer._id_maps is None and budget.total == 1000
    tokens = tokenizer.tokenize(MULTILINGUAL)
    assert tokenizer._id_maps is not None
    assert budget.total >= 1000 + memory.floor("huggingface-ids", 129_280)
    assert b"".join(t.bytes for t in tokens) == MULTILINGUAL.encode()
    assert tokenizer.piece(tokens[0].id) == huggingface_reference().id_to_token(tokens[0].id)

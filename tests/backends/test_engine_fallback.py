"""What the C engine leaves to tiktoken: a tiktoken-style tokenizer whose split pattern has
no engine family (a user's file) still encodes through tiktoken, and a text tiktoken's
regex engine gives up on is a 422-style InvalidInput, not an exception the API turns into a 500."""

from __future__ import annotations

import pytest
import tiktoken

from app.backends.tiktoken_backend import TiktokenTokenizer
from app.errors import InvalidInput
from app.tokenizers.openai_encodings import OpenAIEncoding
from tests.reference import tiktoken_reference

OWN_PATTERN = r""" ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""  # gpt2's, less possessive: no family


@pytest.fixture(scope="module")
def mine() -> TiktokenTokenizer:
    spec = OpenAIEncoding(name="mine", file="mine", pattern=OWN_PATTERN, description="a user's", special_tokens={})
    return TiktokenTokenizer(spec, tiktoken_reference("gpt2")._mergeable_ranks)


def test_a_pattern_with_no_family_goes_to_tiktoken(mine):
    assert mine._engine is None
    text = "Hello world, 123 don't  stop\n"
    ranks = tiktoken_reference("gpt2")._mergeable_ranks
    reference = tiktoken.Encoding("mine", pat_str=OWN_PATTERN, mergeable_ranks=ranks, special_tokens={})
    assert mine.encode(text) == reference.encode_ordinary(text)
    assert mine.count_batch([text, ""]) == [len(mine.encode(text)), 0]


def test_a_text_its_regex_gives_up_on_is_invalid_input(mine):
    with pytest.raises(InvalidInput, match="could not split this text"):
        mine.encode("x" + " " * 1_000_000 + "x")

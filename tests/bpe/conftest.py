"""Fixtures the engine's tests share: `o200k`, our C engine for o200k_base (an `Encoder`) and
tiktoken's own encoding, built once per test module."""

from __future__ import annotations

import pytest

from app.bpe.engine import Encoder
from app.tokenizers.openai_encodings import O200K_PATTERN
from tests.reference import tiktoken_reference


@pytest.fixture(scope="module")
def o200k() -> tuple[Encoder, object]:
    reference = tiktoken_reference("o200k_base")
    encoder = Encoder.for_pattern(O200K_PATTERN, reference._mergeable_ranks, "o200k_base")
    assert encoder is not None
    return encoder, reference

"""The shipped under-trained lists: verified like every shipped file, every listed id is the
token the report names (so no id is off by one or from another vocabulary), and the flags
are true / false / null as documented."""

from __future__ import annotations

import re

import pytest

from app.inspect import undertrained
from app.tokenizers.storage.files import read_manifest
from tests.reference import TOKENIZER_DIR

_ESCAPE = re.compile(r"\\(r|n|t|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2})")


def report_text(token: str) -> str:
    """The report's way of writing a token, undone: "▁" is a space, \\r \\uXXXX \\xNN are escapes."""

    def unescape(match):
        code = match[1]
        return {"r": "\r", "n": "\n", "t": "\t"}.get(code) or chr(int(code[1:], 16))

    return _ESCAPE.sub(unescape, token).replace("\u2581", " ")


def test_the_file_is_in_the_manifest_and_lists_gpt2_and_mistral_v1():
    assert undertrained.FILE in read_manifest(TOKENIZER_DIR)
    lists = undertrained.listings()
    assert set(lists) == {"gpt2", "mistral_v1"}
    assert len(lists["gpt2"]) == 26 and len(lists["mistral_v1"]) == 36  # the reports' "entries below threshold"


@pytest.mark.parametrize("name", ["gpt2", "mistral_v1"])
def test_every_listed_id_is_the_token_the_report_names(registry, name):
    tokenizer = registry.get(name)
    for token_id, listing in undertrained.listings()[name].items():
        ours = tokenizer.id_to_bytes(token_id).decode("utf-8", "replace")
        assert ours == report_text(listing.token), (token_id, listing.token)
        assert 0 < listing.indicator < listing.threshold


def test_flags():
    assert undertrained.flag("gpt2", 40241) is True  # "InstoreAndOnline"
    assert undertrained.flag("gpt2", 43453) is False  # " SolidGoldMagikarp" is not below the report's threshold
    assert undertrained.flag("mistral_v1", 31738) is True
    assert undertrained.flag("cl100k_base", 100) is None and undertrained.model_of("cl100k_base") is None
    listing = undertrained.listing("gpt2", 5815)
    assert listing.max_prob == 0.043 and not listing.verified  # above the paper's 0.01: a candidate only
    assert undertrained.listing("gpt2", 40241).verified
    assert undertrained.model_of("mistral_v1") == "mistralai/Mistral-7B-v0.1"

"""Every tokenizer travels to a worker: built-ins by name, the others pickled as their files."""

from __future__ import annotations

import pickle

import pytest

from app.bpe.model import BPETokenizer
from app.corpus.portable import specs_for
from tests.reference import BUILTIN_NAMES

TEXT = "Hello wörld 👋 한국어\r\n\tdef f(x):  return x**2  <|endoftext|> <|im_start|> [INST] ▁a"


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_every_builtin_pickles_to_the_same_tokenizer(name, registry):
    tokenizer = registry.get(name)
    copy = pickle.loads(pickle.dumps(tokenizer))
    assert type(copy) is type(tokenizer) and copy.name == tokenizer.name
    assert (copy.vocab_size, copy.description, copy.special_tokens) == (
        tokenizer.vocab_size,
        tokenizer.description,
        tokenizer.special_tokens,
    )
    for allow_special in (False, True):
        assert copy.encode(TEXT, allow_special) == tokenizer.encode(TEXT, allow_special)
    ids = tokenizer.encode(TEXT)
    assert copy.decode(ids) == tokenizer.decode(ids)


def test_a_trained_tokenizer_pickles_as_its_model_file():
    model = BPETokenizer.train(TEXT * 5, 300, pattern="gpt2", special_tokens=["<|end|>"], name="tiny")
    data = pickle.dumps(model)
    assert model.dumps() in data, "the pickle carries the model file's text"
    copy = pickle.loads(data)
    assert copy.merges == model.merges and copy.encode(TEXT + "<|end|>", True) == model.encode(TEXT + "<|end|>", True)


def test_specs_send_builtins_by_name_and_the_others_whole(tmp_path):
    from app.settings import Settings
    from app.tokenizers.registry import default_registry

    registry = default_registry(Settings(data_dir=tmp_path))
    BPETokenizer.train(TEXT * 5, 300, name="mine").save(tmp_path / "tokenizers" / "mine.bpe")
    specs = specs_for(["gpt-4o", "cl100k_base", "mine", "o200k_base"], registry)
    assert [(s.name, s.tokenizer is None) for s in specs] == [
        ("o200k_base", True),
        ("cl100k_base", True),
        ("mine", False),
    ]
    assert len(pickle.dumps(specs[0])) < 200
    assert pickle.loads(pickle.dumps(specs[2])).get().encode(TEXT) == registry.get("mine").encode(TEXT)

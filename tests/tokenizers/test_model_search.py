"""Issue 20, point 2: Llama model names in the table (Hub-style ids too), and the search rule the
pickers and GET /api/tokenizers?q= share: a part of a model or tokenizer name, any case."""

from __future__ import annotations

import pytest

from app.tokenizers import models


@pytest.mark.parametrize(
    ("name", "tokenizer"),
    [
        ("llama-3.1-8b-instruct", "llama3"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama3"),
        ("meta-llama/Meta-Llama-3-8B-Instruct", "llama3"),
        ("Meta-Llama-3.1-70B-Instruct", "llama3"),
        ("llama-3.2-1b-instruct", "llama3"),
        ("meta-llama/Llama-3.2-11B-Vision-Instruct", "llama3"),
        ("llama-3.1-405b-instruct-turbo", "llama3"),
        ("llama-4-scout-17b-16e-instruct", "llama4"),
        ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "llama4"),
        ("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "llama4"),
        ("mistralai/Mistral-7B-Instruct-v0.3", "mistral_v3"),
        ("deepseek-ai/DeepSeek-V4-Pro", "deepseek_v4"),
        ("Qwen/Qwen3.6-27B", "qwen3_6"),
        ("openai-community/gpt2", "gpt2"),
    ],
)
def test_llama_and_hub_style_names_find_their_tokenizer(name, tokenizer):
    model = models.find(name)
    assert model is not None and model.tokenizer == tokenizer


@pytest.mark.parametrize(
    "name",
    [
        "someone/Llama-3.1-8B-Instruct-finetune",
        "meta-llama/",
        "llama",
        "deepseek-v3",
        "deepseek-r1",
        "qwen2.5-7b-instruct",
        "qwen3-8b",
    ],
)
def test_names_left_out_find_nothing(name):
    assert models.find(name) is None  # another org's fine-tune, or a tokenizer tokenprism does not ship as it is


@pytest.mark.parametrize(
    ("query", "tokenizers"),
    [
        ("llama", {"llama3", "llama4"}),
        ("LLAMA-4", {"llama4"}),
        ("deepseek", {"deepseek_v4"}),
        ("Qwen", {"qwen3_6"}),
        ("Mistral-7B", {"mistral_v1", "mistral_v3"}),
        ("meta-llama/Llama-3.3", {"llama3"}),
    ],
)
def test_matching_finds_models_by_a_part_of_their_name(query, tokenizers):
    found = models.matching(query)
    assert {model.tokenizer for model in found} == tokenizers
    assert all(models.bare(query) in model.name.lower() for model in found)


def test_matching_nothing_for_no_part():
    assert models.matching("") == [] and models.matching("zzz-no-such") == []


def test_the_registry_search_finds_tokenizers_by_a_part_of_a_model_name(registry):
    def names(query):
        return [entry.name for entry in registry.search(query, 20)]

    assert names("Mistral-7B")[:2] == ["mistral_v1", "mistral_v3"]
    assert names("deepseek") == ["deepseek_v4"]
    assert names("qwen") == ["qwen3_6"]
    assert names("gpt-4o")[0] == "o200k_base"
    assert set(names("llama")) <= {"llama3", "llama4"}  # whichever of them this tree ships
    assert names("davinci-0")  # text-davinci-003 (p50k_base, not shipped) is skipped, davinci-002 is not

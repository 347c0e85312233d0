"""Model names: the table in app/tokenizers/models.py, its lookup, and `Registry.resolve`
taking model names (exact, prefix, any case) after tokenizer names and aliases; the CLI
gets the same through resolve."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken.model

from app.errors import UnknownTokenizer
from app.tokenizers import models
from app.tokenizers.registry import Entry, Registry
from tests.reference import reference_ids

SCRIPT = Path(sys.executable).with_name("tokenprism")


def flat(groups: dict[str, dict[str, str]]) -> list[tuple[str, str]]:
    return [pair for names in groups.values() for pair in names.items()]


# ---- the table ------------------------------------------------------------------------


def test_openai_rows_are_tiktokens_own_table_in_its_order():
    assert flat(models.OPENAI_MODEL_TO_ENCODING) == list(tiktoken.model.MODEL_TO_ENCODING.items())
    assert flat(models.OPENAI_PREFIX_TO_ENCODING) == list(tiktoken.model.MODEL_PREFIX_TO_ENCODING.items())


def our_name(encoding: str) -> str:
    return models.ENCODING_TO_TOKENIZER.get(encoding, encoding)


EXAMPLES = [
    *tiktoken.model.MODEL_TO_ENCODING,
    "gpt-4o-2024-08-06",
    "gpt-4o-mini",
    "chatgpt-4o-latest",
    "gpt-4-0314",
    "gpt-4-32k",
    "gpt-3.5-turbo-0125",
    "gpt-35-turbo-16k",
    "o1-preview",
    "o3-mini",
    "o4-mini-2025-04-16",
    "gpt-4.1-nano",
    "gpt-4.5-preview",
    "gpt-5-mini",
    "gpt-5.1",
    "gpt-oss-120b",
    "ft:gpt-4o-mini-2024-07-18:org::abc",
    "ft:gpt-4:org:x:1",
    "ft:gpt-3.5-turbo-0613:org::y",
    "ft:davinci-002:org::z",
    "ft:babbage-002:org::w",
]


@pytest.mark.parametrize("name", EXAMPLES)
def test_openai_names_resolve_as_tiktoken_resolves_them(name):
    model = models.find(name)
    assert model is not None and model.vendor == "OpenAI"
    assert model.tokenizer == our_name(tiktoken.model.encoding_name_for_model(name))


@pytest.mark.parametrize(
    "name, tokenizer, prefix",
    [
        ("gpt-4o", "o200k_base", False),
        ("gpt-4o-2024-05-13", "o200k_base", True),
        ("gpt-4", "cl100k_base", False),
        ("gpt-4-turbo", "cl100k_base", True),
        ("davinci", "gpt2", False),  # r50k_base is our gpt2
        ("gpt-2", "gpt2", False),
        ("text-davinci-003", "p50k_base", False),  # not shipped: keeps tiktoken's name
        ("code-davinci-edit-001", "p50k_edit", False),
        ("gpt-oss-20b", "o200k_harmony", True),
        ("mistral-7b-v0.1", "mistral_v1", False),
        ("mistral-7b-instruct-v0.3", "mistral_v3", False),
        ("mixtral-8x22b", "mistral_v3", False),
        ("mixtral-8x22b-instruct-v0.1", "mistral_v3", False),
        ("codestral-22b-v0.1", "mistral_v3", False),
        ("mistral-nemo", "mistral_tekken", False),
        ("mistral-nemo-instruct-2407", "mistral_tekken", False),
        ("pixtral-12b", "mistral_tekken", False),
        ("ministral-8b", "mistral_tekken", False),
        ("deepseek-v4", "deepseek_v4", False),
        ("DeepSeek-V4-Pro", "deepseek_v4", False),
        ("deepseek-v4-flash-base", "deepseek_v4", True),
        ("qwen3.6", "qwen3_6", False),
        ("qwen3.6-plus", "qwen3_6", True),
        ("qwen3.5-27b", "qwen3_6", True),
    ],
)
def test_exact_names_and_prefix_rules(name, tokenizer, prefix):
    model = models.find(name)
    assert (model.tokenizer, model.prefix) == (tokenizer, prefix)


@pytest.mark.parametrize("name", ["GPT-4o", "gpt-4O", "Mistral-7B-v0.1", "GPT-4O-2024-08-06", "QWEN3.6-PLUS", "O3"])
def test_model_names_match_in_any_case(name):
    assert models.find(name) is models.find(name.lower()) is not None


@pytest.mark.parametrize("name", ["gpt5", "llama-3", "", "o200k_base", "gpt", "qwen3.5", "claude-3-opus", "4o"])
def test_names_that_are_no_models_find_nothing(name):
    assert models.find(name) is None


def test_first_prefix_wins_as_in_tiktoken():
    # "ft:gpt-4o" comes before "ft:gpt-4", which would match as well
    assert models.find("ft:gpt-4o-mini:org::1").tokenizer == "o200k_base"
    assert models.find("ft:gpt-4-0613:org::1").tokenizer == "cl100k_base"


def test_every_row_says_its_vendor_and_family_and_names_are_unique():
    assert all(model.vendor and model.family for model in models.MODELS)
    keys = [(model.name.lower(), model.prefix) for model in models.MODELS]
    assert len(keys) == len(set(keys))


def test_models_for_lists_exact_names_then_prefixes():
    used = models.models_for("o200k_base")
    assert used[:6] == ["o1", "o3", "o4-mini", "gpt-5", "gpt-4.1", "gpt-4o"]
    assert "gpt-4o-*" in used and used.index("gpt-4o") < used.index("o1-*")
    assert models.models_for("gpt2")[:2] == ["gpt2", "gpt-2"]  # deprecated models (davinci, ...) after the rest
    assert "davinci" in models.models_for("gpt2")
    assert models.models_for("o200k_harmony") == ["gpt-oss-*"]
    assert models.models_for("tokenprism_4k") == []


# ---- Registry.resolve -----------------------------------------------------------------


def fake_registry(*names: str) -> Registry:
    registry = Registry()
    for name in names:
        registry.register(
            Entry(name, "bpe", 256, f"fake {name}", lambda: None), aliases=("r50k_base",) if name == "gpt2" else ()
        )
    return registry


def test_resolve_takes_model_names():
    registry = fake_registry("gpt2", "cl100k_base", "o200k_base", "mistral_v1")
    assert registry.resolve("gpt-4o") == "o200k_base"
    assert registry.resolve("GPT-4o-2024-08-06") == "o200k_base"
    assert registry.resolve("gpt-3.5-turbo") == "cl100k_base"
    assert registry.resolve("text-ada-001") == "gpt2"
    assert registry.resolve("Mistral-7B-v0.1") == "mistral_v1"
    assert registry.resolve("r50k_base") == "gpt2"


def test_tokenizer_names_and_aliases_come_before_model_names():
    registry = fake_registry("gpt2", "o200k_base", "gpt-4o")
    assert registry.resolve("gpt-4o") == "gpt-4o"  # a tokenizer of that very name
    assert registry.resolve("gpt2") == "gpt2"
    assert registry.resolve("gpt-4o-mini") == "o200k_base"


def test_tokenizer_names_are_case_sensitive():
    registry = fake_registry("o200k_base")
    with pytest.raises(UnknownTokenizer):
        registry.resolve("O200K_BASE")


def test_a_model_whose_tokenizer_is_not_shipped_is_a_404_naming_both():
    registry = fake_registry("gpt2", "cl100k_base", "o200k_base")
    with pytest.raises(UnknownTokenizer) as caught:
        registry.resolve("text-davinci-003")
    error = caught.value
    assert (error.status, error.code) == (404, "unknown_tokenizer")
    assert "'text-davinci-003'" in error.message and "p50k_base" in error.message
    assert "does not ship" in error.message and "GET /api/models" in error.message


def test_a_registered_tokenizer_of_the_needed_name_makes_the_model_work():
    registry = fake_registry("gpt2", "p50k_base")
    assert registry.resolve("text-davinci-003") == "p50k_base"
    assert registry.has("p50k_base") and not registry.has("text-davinci-003")


def test_an_unknown_name_lists_tokenizers_and_points_to_models():
    registry = fake_registry("gpt2", "cl100k_base")
    with pytest.raises(UnknownTokenizer) as caught:
        registry.resolve("gpt5")
    assert caught.value.message == (
        "unknown tokenizer 'gpt5'; use one of: gpt2, cl100k_base, or a model name such as gpt-4o (GET /api/models)"
    )


def test_the_real_registry_gets_the_same_tokenizer_for_a_model(registry):
    assert registry.get("gpt-4o") is registry.get("o200k_base")
    assert registry.get("gpt-4") is registry.get("cl100k_base")
    infos = {info["name"]: info for info in registry.infos()}
    assert "gpt-4o" in infos["o200k_base"]["models"] and "gpt-4" in infos["cl100k_base"]["models"]
    assert infos["mistral_v1"]["models"][0] == "mistral-7b-v0.1" and infos["tokenprism_4k"]["models"] == []


# ---- the CLI, through resolve ---------------------------------------------------------


def run_cli(*args: str, data_dir: Path, stdin: bytes = b"") -> subprocess.CompletedProcess:
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data_dir)}
    return subprocess.run([str(SCRIPT), *args], input=stdin, capture_output=True, env=env, timeout=120)


def test_cli_takes_model_names(tmp_path):
    text = "Model names work in the CLI too: 안녕 👋"
    result = run_cli("encode", "-t", "gpt-4o-2024-08-06", "-", data_dir=tmp_path, stdin=text.encode())
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == reference_ids("o200k_base", text)
    table = run_cli(
        "count", "-t", "gpt-4", "-t", "cl100k_base", "-t", "gpt2", "--json", "-", data_dir=tmp_path, stdin=text.encode()
    )
    assert table.returncode == 0, table.stderr
    counts = json.loads(table.stdout)["total"]
    assert list(counts) == ["cl100k_base", "gpt2"]  # gpt-4 and cl100k_base are one tokenizer
    assert counts["cl100k_base"] == len(reference_ids("cl100k_base", text))


def test_cli_names_a_model_whose_tokenizer_is_not_shipped(tmp_path):
    result = run_cli("encode", "-t", "text-davinci-003", "-", data_dir=tmp_path, stdin=b"x")
    err = result.stderr.decode()
    assert result.returncode == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "text-davinci-003" in err and "p50k_base" in err and "does not ship" in err

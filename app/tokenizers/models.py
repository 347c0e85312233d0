"""Model names -> tokenizer names: people think in models ("gpt-4o"), tokenprism in tokenizers.

One table, as data. Each row is a model name, or the start of model names (`prefix=True`:
"gpt-4o-" covers "gpt-4o-2024-08-06"), with the tokenizer it uses and, for display, its
vendor and family. `find` looks a name up the way tiktoken's `encoding_name_for_model`
does: an exact name first, then the prefix rules in table order, the first that matches
wins; unlike tiktoken, case does not matter. The registry (`Registry.resolve`) asks here
only after a name failed as a tokenizer name or alias.

The OpenAI rows are tiktoken's own table, copied as data (names and mappings, grouped by
its comments) from tiktoken 0.14.0, `tiktoken/model.py`: `MODEL_TO_ENCODING` and
`MODEL_PREFIX_TO_ENCODING`. A test checks them against the installed tiktoken. Its
encodings map to tokenprism's tokenizer names by `ENCODING_TO_TOKENIZER`; an encoding not
shipped here (p50k_base, p50k_edit) keeps its own name, so such a model resolves to a
tokenizer that is not registered, and the registry says so. The Llama rows name `llama3` and
`llama4` the same way. Left out: names whose tokenizer tokenprism does not ship as that exact
tokenizer (DeepSeek V3/R1, whose tokenizer.json is not checked to equal V4's; Qwen 2.5/3, whose
151,665-id vocabulary is not qwen3_6's 248,077).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ENCODING_TO_TOKENIZER", "HUB_ORGS", "MODELS", "Model", "claim", "find", "matching", "models_for"]


@dataclass(frozen=True)
class Model:
    name: str  # a model name; with prefix=True, the start of model names
    tokenizer: str  # a tokenprism tokenizer name (or an encoding tokenprism does not ship)
    vendor: str
    family: str
    prefix: bool = False

    @property
    def label(self) -> str:
        """The name as people read it: a prefix rule ends in '*' ("gpt-4o-*")."""
        return f"{self.name}*" if self.prefix else self.name

    def info(self) -> dict:
        return {
            "name": self.name,
            "prefix": self.prefix,
            "tokenizer": self.tokenizer,
            "vendor": self.vendor,
            "family": self.family,
        }


# tiktoken encoding name -> tokenprism tokenizer name (gpt2 and r50k_base are the same ranks)
ENCODING_TO_TOKENIZER = {
    "gpt2": "gpt2",
    "r50k_base": "gpt2",
    "cl100k_base": "cl100k_base",
    "o200k_base": "o200k_base",
    "o200k_harmony": "o200k_harmony",
}

# tiktoken 0.14.0 MODEL_TO_ENCODING, in its order; keys are its comments. model -> encoding
OPENAI_MODEL_TO_ENCODING: dict[str, dict[str, str]] = {
    "reasoning": {"o1": "o200k_base", "o3": "o200k_base", "o4-mini": "o200k_base"},
    "chat": {
        "gpt-5": "o200k_base",
        "gpt-4.1": "o200k_base",
        "gpt-4o": "o200k_base",
        "gpt-4": "cl100k_base",
        "gpt-3.5-turbo": "cl100k_base",
        "gpt-3.5": "cl100k_base",
        "gpt-35-turbo": "cl100k_base",
    },
    "base": {"davinci-002": "cl100k_base", "babbage-002": "cl100k_base"},
    "embeddings": {
        "text-embedding-ada-002": "cl100k_base",
        "text-embedding-3-small": "cl100k_base",
        "text-embedding-3-large": "cl100k_base",
    },
    "text (deprecated)": {
        "text-davinci-003": "p50k_base",
        "text-davinci-002": "p50k_base",
        "text-davinci-001": "r50k_base",
        "text-curie-001": "r50k_base",
        "text-babbage-001": "r50k_base",
        "text-ada-001": "r50k_base",
        "davinci": "r50k_base",
        "curie": "r50k_base",
        "babbage": "r50k_base",
        "ada": "r50k_base",
    },
    "code (deprecated)": {
        "code-davinci-002": "p50k_base",
        "code-davinci-001": "p50k_base",
        "code-cushman-002": "p50k_base",
        "code-cushman-001": "p50k_base",
        "davinci-codex": "p50k_base",
        "cushman-codex": "p50k_base",
    },
    "edit (deprecated)": {"text-davinci-edit-001": "p50k_edit", "code-davinci-edit-001": "p50k_edit"},
    "old embeddings (deprecated)": {
        "text-similarity-davinci-001": "r50k_base",
        "text-similarity-curie-001": "r50k_base",
        "text-similarity-babbage-001": "r50k_base",
        "text-similarity-ada-001": "r50k_base",
        "text-search-davinci-doc-001": "r50k_base",
        "text-search-curie-doc-001": "r50k_base",
        "text-search-babbage-doc-001": "r50k_base",
        "text-search-ada-doc-001": "r50k_base",
        "code-search-babbage-code-001": "r50k_base",
        "code-search-ada-code-001": "r50k_base",
    },
    "open source": {"gpt2": "gpt2", "gpt-2": "gpt2"},
}

# tiktoken 0.14.0 MODEL_PREFIX_TO_ENCODING, in its order (the first match wins). prefix -> encoding
OPENAI_PREFIX_TO_ENCODING: dict[str, dict[str, str]] = {
    "reasoning": {"o1-": "o200k_base", "o3-": "o200k_base", "o4-mini-": "o200k_base"},
    "chat": {
        "gpt-5": "o200k_base",
        "gpt-4.5-": "o200k_base",
        "gpt-4.1-": "o200k_base",
        "chatgpt-4o-": "o200k_base",
        "gpt-4o-": "o200k_base",
        "gpt-4-": "cl100k_base",
        "gpt-3.5-turbo-": "cl100k_base",
        "gpt-35-turbo-": "cl100k_base",
        "gpt-oss-": "o200k_harmony",
    },
    "fine-tuned": {
        "ft:gpt-4o": "o200k_base",
        "ft:gpt-4": "cl100k_base",
        "ft:gpt-3.5-turbo": "cl100k_base",
        "ft:davinci-002": "cl100k_base",
        "ft:babbage-002": "cl100k_base",
    },
}

# Open-weight models, by the names their vendors publish them under (lower case).
# (name, tokenizer, vendor, family, prefix)
OTHER_MODELS: tuple[tuple[str, str, str, str, bool], ...] = (
    ("mistral-7b-v0.1", "mistral_v1", "Mistral AI", "Mistral 7B", False),
    ("mistral-7b-instruct-v0.1", "mistral_v1", "Mistral AI", "Mistral 7B", False),
    ("mistral-7b-instruct-v0.2", "mistral_v1", "Mistral AI", "Mistral 7B", False),
    ("mixtral-8x7b-v0.1", "mistral_v1", "Mistral AI", "Mixtral", False),
    ("mixtral-8x7b-instruct-v0.1", "mistral_v1", "Mistral AI", "Mixtral", False),
    ("mistral-7b-v0.3", "mistral_v3", "Mistral AI", "Mistral 7B", False),
    ("mistral-7b-instruct-v0.3", "mistral_v3", "Mistral AI", "Mistral 7B", False),
    ("mixtral-8x22b", "mistral_v3", "Mistral AI", "Mixtral", False),
    ("mixtral-8x22b-v0.1", "mistral_v3", "Mistral AI", "Mixtral", False),
    ("mixtral-8x22b-instruct-v0.1", "mistral_v3", "Mistral AI", "Mixtral", False),
    ("codestral-22b-v0.1", "mistral_v3", "Mistral AI", "Codestral", False),
    ("mistral-nemo", "mistral_tekken", "Mistral AI", "Mistral NeMo", False),
    ("mistral-nemo-instruct-2407", "mistral_tekken", "Mistral AI", "Mistral NeMo", False),
    ("pixtral-12b", "mistral_tekken", "Mistral AI", "Pixtral", False),
    ("ministral-8b", "mistral_tekken", "Mistral AI", "Ministral", False),
    ("deepseek-v4", "deepseek_v4", "DeepSeek", "DeepSeek V4", False),
    ("deepseek-v4-pro", "deepseek_v4", "DeepSeek", "DeepSeek V4", False),
    ("deepseek-v4-flash", "deepseek_v4", "DeepSeek", "DeepSeek V4", False),
    ("deepseek-v4-", "deepseek_v4", "DeepSeek", "DeepSeek V4", True),  # deepseek-v4-pro-base, ...
    ("qwen3.6", "qwen3_6", "Qwen (Alibaba)", "Qwen3.6", False),
    ("qwen3.6-27b", "qwen3_6", "Qwen (Alibaba)", "Qwen3.6", False),
    ("qwen3.6-35b-a3b", "qwen3_6", "Qwen (Alibaba)", "Qwen3.6", False),
    ("qwen3.5-", "qwen3_6", "Qwen (Alibaba)", "Qwen3.5", True),  # qwen3.5-27b, qwen3.5-plus, ...
    ("qwen3.6-", "qwen3_6", "Qwen (Alibaba)", "Qwen3.6", True),  # qwen3.6-plus, ...
    # Meta's published ids (Hugging Face meta-llama/..., lower case); the Llama 3 family shares one tokenizer
    ("meta-llama-3-8b", "llama3", "Meta", "Llama 3", False),
    ("meta-llama-3-8b-instruct", "llama3", "Meta", "Llama 3", False),
    ("meta-llama-3-70b", "llama3", "Meta", "Llama 3", False),
    ("meta-llama-3-70b-instruct", "llama3", "Meta", "Llama 3", False),
    ("llama-3.1-8b", "llama3", "Meta", "Llama 3.1", False),
    ("llama-3.1-8b-instruct", "llama3", "Meta", "Llama 3.1", False),
    ("llama-3.1-70b", "llama3", "Meta", "Llama 3.1", False),
    ("llama-3.1-70b-instruct", "llama3", "Meta", "Llama 3.1", False),
    ("llama-3.1-405b", "llama3", "Meta", "Llama 3.1", False),
    ("llama-3.1-405b-instruct", "llama3", "Meta", "Llama 3.1", False),
    ("llama-3.2-1b", "llama3", "Meta", "Llama 3.2", False),
    ("llama-3.2-1b-instruct", "llama3", "Meta", "Llama 3.2", False),
    ("llama-3.2-3b", "llama3", "Meta", "Llama 3.2", False),
    ("llama-3.2-3b-instruct", "llama3", "Meta", "Llama 3.2", False),
    ("llama-3.2-11b-vision", "llama3", "Meta", "Llama 3.2", False),
    ("llama-3.2-11b-vision-instruct", "llama3", "Meta", "Llama 3.2", False),
    ("llama-3.2-90b-vision", "llama3", "Meta", "Llama 3.2", False),
    ("llama-3.2-90b-vision-instruct", "llama3", "Meta", "Llama 3.2", False),
    ("llama-3.3-70b-instruct", "llama3", "Meta", "Llama 3.3", False),
    ("llama-4-scout-17b-16e", "llama4", "Meta", "Llama 4 Scout", False),
    ("llama-4-scout-17b-16e-instruct", "llama4", "Meta", "Llama 4 Scout", False),
    ("llama-4-maverick-17b-128e", "llama4", "Meta", "Llama 4 Maverick", False),
    ("llama-4-maverick-17b-128e-instruct", "llama4", "Meta", "Llama 4 Maverick", False),
    ("llama-4-maverick-17b-128e-instruct-fp8", "llama4", "Meta", "Llama 4 Maverick", False),
    ("meta-llama-3-", "llama3", "Meta", "Llama 3", True),  # meta-llama-3-8b-instruct-..., and 3.1's first names:
    ("meta-llama-3.1-", "llama3", "Meta", "Llama 3.1", True),  # meta-llama-3.1-8b-instruct
    ("llama-3.1-", "llama3", "Meta", "Llama 3.1", True),  # llama-3.1-8b-instruct-turbo, ...
    ("llama-3.2-", "llama3", "Meta", "Llama 3.2", True),
    ("llama-3.3-", "llama3", "Meta", "Llama 3.3", True),
    ("llama-4-", "llama4", "Meta", "Llama 4", True),  # llama-4-scout-17b-16e-instruct-fp8, ...
)

# The organisations whose Hugging Face ids ("meta-llama/Llama-3.3-70B-Instruct") name the models above:
# `find` looks up the name after such a prefix. Other "org/name" ids are not taken (a fine-tune of
# someone else's may have changed its tokenizer).
HUB_ORGS = ("meta-llama/", "mistralai/", "deepseek-ai/", "qwen/", "openai/", "openai-community/")


def _table() -> tuple[Model, ...]:
    rows = []
    for prefix, groups in ((False, OPENAI_MODEL_TO_ENCODING), (True, OPENAI_PREFIX_TO_ENCODING)):
        for family, names in groups.items():
            for name, encoding in names.items():
                rows.append(Model(name, ENCODING_TO_TOKENIZER.get(encoding, encoding), "OpenAI", family, prefix))
    rows.extend(Model(*row) for row in OTHER_MODELS)
    return tuple(rows)


MODELS: tuple[Model, ...] = _table()  # exact names and prefix rules; the prefix rules in match order
_EXACT = {model.name.lower(): model for model in MODELS if not model.prefix}  # lower-case name -> Model
_PREFIXES = tuple((model.name.lower(), model) for model in MODELS if model.prefix)
_BY_TOKENIZER: dict[str, tuple[str, ...]] = {}  # tokenizer -> labels: exact names (deprecated last), then prefixes
for _model in sorted(MODELS, key=lambda model: (model.prefix, "deprecated" in model.family)):
    _BY_TOKENIZER[_model.tokenizer] = (*_BY_TOKENIZER.get(_model.tokenizer, ()), _model.label)


def bare(name: str) -> str:
    """`name` in lower case without a known Hub organisation ("meta-llama/Llama-3.3-70B-Instruct"
    -> "llama-3.3-70b-instruct")."""
    lowered = name.lower()
    return next((lowered[len(org) :] for org in HUB_ORGS if lowered.startswith(org)), lowered)


def find(name: str) -> Model | None:
    """The row for model `name`: an exact name, else the first prefix rule it starts with
    (case-insensitive, after a known Hub organisation); None for a name that is no model's."""
    lowered = bare(name)
    exact = _EXACT.get(lowered)
    if exact is not None:
        return exact
    return next((model for prefix, model in _PREFIXES if lowered.startswith(prefix)), None)


def matching(query: str) -> list[Model]:
    """The search boxes' rule for models (app.js `matchNames` is the same): the rows whose name
    contains `query` (any case, after a known Hub organisation), in table order, prefix rules
    included ("qwen" finds qwen3.5-*)."""
    part = bare(query)
    return [model for model in MODELS if part and part in model.name.lower()]


def claim(name: str) -> str | None:
    """What `name` already means as a model name, said for a refusal ("the model name of
    o200k_base"), or None. A prefix rule counts: a tokenizer named gpt-4o-mine would
    shadow what the gpt-4o-* rule promises, so it is refused too."""
    model = find(name)
    if model is None:
        return None
    if model.prefix:
        return f"a model name (the {model.label} rule gives {model.tokenizer})"
    return f"the model name of {model.tokenizer}"


def models_for(tokenizer: str) -> list[str]:
    """The models that use `tokenizer` (canonical name), for display: exact names in table order
    with deprecated ones last, then prefix rules as "gpt-4o-*"."""
    return list(_BY_TOKENIZER.get(tokenizer, ()))

"""Under-trained token flags from published lists: tokenizers/under_trained.tsv.

The file holds, per tokenizer, the ids that Land & Bartolo (2024, "Fishing for Magikarp",
arXiv:2405.05417) list as under-trained in their report on one model that uses it (gpt2:
openai-community/gpt2; mistral_v1: Mistral-7B-v0.1), with the report's indicator and
max_prob. It is read once, through `files.read_verified` (so its sha256 is checked against
MANIFEST.tsv like every shipped file). `flag(name, id)` is True for a listed id, False for
another id of a tokenizer that has a list, and None for a tokenizer without one: being
under-trained is a property of a model's embeddings, not of the vocabulary, and nothing
here guesses it. A tokenizer folder whose MANIFEST does not list the file has no lists.
Left out: the reports' other tables (bytes, special and partial tokens).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from app.settings import get_settings
from app.tokenizers.storage.files import read_manifest, read_verified

FILE = "under_trained.tsv"
COLUMNS = ["tokenizer", "model", "report", "threshold", "token_id", "token", "indicator", "max_prob"]
VERIFIED_BELOW = 0.01  # the paper's threshold on max_prob for a verified under-trained token


@dataclass(frozen=True)
class Listing:
    """One listed token: what the report says about it."""

    model: str
    report: str  # path@commit in cohere-ai/magikarp
    threshold: float
    token: str  # as the report writes it ("▁" is a space)
    indicator: float
    max_prob: float

    @property
    def verified(self) -> bool:
        return self.max_prob < VERIFIED_BELOW

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "report": f"cohere-ai/magikarp {self.report}",
            "threshold": self.threshold,
            "indicator": self.indicator,
            "max_prob": self.max_prob,
            "verified": self.verified,
        }


@lru_cache(maxsize=1)
def listings() -> dict[str, dict[int, Listing]]:
    """tokenizer name -> token id -> its listing (every tokenizer that has a published list)."""
    directory = get_settings().tokenizer_dir
    if FILE not in read_manifest(directory):  # a tokenizer folder of its own, without the lists
        return {}
    text = read_verified(FILE, directory).decode("utf-8")
    found: dict[str, dict[int, Listing]] = {}
    header_seen = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if not header_seen:
            if fields != COLUMNS:
                raise ValueError(f"{FILE} line {number}: the header should be {COLUMNS}")
            header_seen = True
            continue
        row = dict(zip(COLUMNS, fields, strict=True))
        found.setdefault(row["tokenizer"], {})[int(row["token_id"])] = Listing(
            row["model"],
            row["report"],
            float(row["threshold"]),
            row["token"],
            float(row["indicator"]),
            float(row["max_prob"]),
        )
    return found


def has_list(name: str) -> bool:
    return name in listings()


def flag(name: str, token_id: int) -> bool | None:
    listed = listings().get(name)
    return None if listed is None else token_id in listed


def listing(name: str, token_id: int) -> Listing | None:
    return listings().get(name, {}).get(token_id)


def model_of(name: str) -> str | None:
    """The model whose report the flags of `name` come from, if there is one."""
    listed = listings().get(name)
    return next(iter(listed.values())).model if listed else None

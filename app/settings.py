"""One settings object for the whole app, read from TOKENPRISM_* environment variables.

Paths (where the shipped tokenizer files and the user's trained tokenizers live) and the
limits that keep hostile input away from the tokenizers. Unsafe values are refused at
start-up, not discovered at request time.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tokenprism"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TOKENPRISM_")

    tokenizer_dir: Path = Field(REPO_ROOT / "tokenizers", description="shipped tokenizer files and MANIFEST.tsv")
    data_dir: Path = Field(default_factory=_default_data_dir, description="user-trained tokenizers go here")
    max_text_chars: int = Field(500_000, description="longest text any tokenizer is given")
    max_body_bytes: int = Field(4_000_000, description="largest request body the server reads")
    max_ids: int = Field(500_000, description="most token ids one decode request may carry")
    max_compare: int = Field(6, description="most tokenizers in one comparison")
    render_tokens: int = Field(5_000, description="tokens drawn as spans before the page shows 'first part only'")
    max_response_tokens: int = Field(
        250_000, description="most tokens one request may list (over all its tokenizers); /api/count has no such limit"
    )
    workers: int = Field(
        default_factory=lambda: max(1, os.cpu_count() or 1),
        description="threads for tokenizer work in one server process (default: the CPU count)",
    )
    queue_wait_s: float = Field(10.0, description="longest a request waits for a worker thread before a 503")
    max_queue: int = Field(256, description="most requests waiting for a worker thread before new ones get a 503")

    @field_validator("max_text_chars", "max_body_bytes", "max_ids", "max_compare", "render_tokens", "max_response_tokens", "workers", "max_queue")
    @classmethod
    def _positive_and_sane(cls, value: int, info) -> int:
        if value < 1:
            raise ValueError(f"{info.field_name} must be at least 1")
        if info.field_name == "max_text_chars" and value > 900_000:
            # tiktoken's regex panics near a million identical whitespace characters.
            raise ValueError("max_text_chars above 900,000 lets tiktoken's regex panic; keep it lower")
        return value

    @property
    def user_tokenizer_dir(self) -> Path:
        return self.data_dir / "tokenizers"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()

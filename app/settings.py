"""One settings object for the whole app, read from TOKENPRISM_* environment variables.

Paths (where the shipped tokenizer files and the user's trained tokenizers live) and the
limits that keep hostile input away from the tokenizers. Unsafe values are refused at
start-up, not discovered at request time: `Settings()` raises one `SettingsError` whose
message is one line naming the variable, the value given and the allowed range or fix.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV_PREFIX = "TOKENPRISM_"
MANIFEST_NAME = "MANIFEST.tsv"

# field -> (lowest, highest, why): both the check and its message read these numbers.
# A float bound makes the field a number of seconds; an int bound, a whole number.
LIMITS: dict[str, tuple[int | float, int | float, str]] = {
    "max_text_chars": (1, 900_000, "above 900000 tiktoken's regex can panic on a long run of spaces"),
    "max_body_bytes": (1_024, 100_000_000, "below 1024 bytes no request fits"),
    "max_ids": (1, 10_000_000, ""),
    "max_compare": (2, 32, "a comparison needs at least 2 tokenizers"),
    "render_tokens": (1, 200_000, ""),
    "max_response_tokens": (1, 10_000_000, ""),
    "workers": (1, 1_024, ""),
    "queue_wait_s": (0.1, 300.0, ""),
    "max_queue": (1, 100_000, ""),
    "max_inflight_body_bytes": (1024, 10_000_000_000, ""),
    "max_upload_bytes": (1024, 1_000_000_000, ""),
    "max_train_bytes": (1_024, 1_000_000_000, ""),
    "max_train_vocab": (
        257,
        1_048_576,
        "a vocabulary has the 256 bytes and at least one merge; 1048576 is the most a model has",
    ),
    "train_jobs": (1, 64, ""),
    "train_queue": (0, 10_000, ""),
    "max_share_bytes": (1_024, 100_000_000, ""),
    "max_share_store_bytes": (1_024, 1_000_000_000_000, ""),
    "max_upload_vocab": (256, 4_000_000, "a vocabulary needs at least the 256 bytes"),
    "memory_budget_mb": (64, 1_000_000, ""),
    "header_timeout_s": (0.5, 600.0, ""),
    "body_timeout_s": (0.5, 600.0, ""),
    "keepalive_timeout_s": (0.5, 600.0, ""),
    "shares_per_minute": (1, 1_000_000, ""),
    "uploads_per_minute": (1, 1_000_000, ""),
}


class SettingsError(ValueError):
    """A TOKENPRISM_* value (or a keyword given to `Settings`) that is refused; `message` is one line."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tokenprism"


def _default_workers() -> int:
    return min(max(1, os.cpu_count() or 1), int(LIMITS["workers"][1]))


def _allowed(field: str) -> str:
    low, high, why = LIMITS[field]
    kind = "a number of seconds" if isinstance(low, float) else "a whole number"
    shown = (lambda bound: f"{bound:g}") if isinstance(low, float) else str
    return f"use {kind} from {shown(low)} to {shown(high)}" + (f" ({why})" if why else "")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX)

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
        default_factory=_default_workers,
        description="threads for tokenizer work in one server process (default: the CPU count)",
    )
    queue_wait_s: float = Field(10.0, description="longest a request waits for a worker thread before a 503")
    max_queue: int = Field(256, description="most requests waiting for a worker thread before new ones get a 503")
    max_upload_bytes: int = Field(
        48_000_000, description="largest tokenizer file a user may add (the largest shipped tokenizer.json is ~10 MB)"
    )
    max_train_bytes: int = Field(
        16_000_000, description="largest training corpus (UTF-8 bytes of all its texts and files) one web job takes"
    )
    max_train_vocab: int = Field(50_000, description="largest vocab_size a web training job may ask for")
    train_jobs: int = Field(1, description="training jobs one server process runs at once, each in a child process")
    train_queue: int = Field(4, description="training jobs that may wait for a free slot; more get a 503")
    admin_token: str | None = Field(
        None, description="when set, adding and removing tokenizers from the web needs 'Authorization: Bearer' it"
    )
    max_inflight_body_bytes: int = Field(
        64_000_000, description="request body bytes one process holds at once, over all requests; more get a 503"
    )
    max_share_bytes: int = Field(
        4_000_000,
        description="largest view one share stores (its canonical JSON); the default takes any text the pages take",
    )
    max_share_store_bytes: int = Field(
        1_000_000_000,
        description="bytes all shares together may take in shares.sqlite3 (compressed); then 409 store_full",
    )
    max_upload_vocab: int = Field(
        300_000, description="largest vocabulary (ids) an added tokenizer file may have; the largest shipped is 248,077"
    )
    memory_budget_mb: int = Field(
        1_024,
        description="MB that loaded tokenizers, vocabulary indexes and merge lineages may hold in one process; "
        "past it the least recently used are dropped",
    )
    allowed_hosts: str = Field(
        "",
        description="comma-separated Host names this server answers (name or name:port; '*' for any); "
        "empty: the loopback names (localhost, 127.0.0.1, ::1) and bind_host; bound to every address "
        "(0.0.0.0 or ::), also this machine's host name and any IP address (an address cannot be rebound by DNS)",
    )
    bind_host: str = Field(
        "", description="the address the server listens on; `tokenprism serve --host` sets it (empty: loopback only)"
    )
    header_timeout_s: float = Field(10.0, description="longest a client may take to send a request's headers; then 408")
    body_timeout_s: float = Field(15.0, description="longest a request body may go without a byte arriving; then 408")
    keepalive_timeout_s: float = Field(5.0, description="an idle keep-alive connection is closed after this long")
    shares_per_minute: int = Field(20, description="shares one client (IP address) may store a minute; more get a 429")
    uploads_per_minute: int = Field(
        6, description="tokenizer uploads and training jobs one client (IP address) may start a minute; more get a 429"
    )

    def __init__(self, **values: Any):
        try:
            super().__init__(**values)
        except ValidationError as error:
            raise SettingsError(_one_line(error, given=set(values))) from None

    @field_validator(*LIMITS)
    @classmethod
    def _within_limits(cls, value: int | float, info: ValidationInfo) -> int | float:
        name = _field(info)
        low, high, _ = LIMITS[name]
        if not low <= value <= high:  # also refuses nan
            raise ValueError(f"is out of range; {_allowed(name)}")
        return value

    @field_validator("max_inflight_body_bytes")
    @classmethod
    def _holds_one_largest_body(cls, value: int, info: ValidationInfo) -> int:
        for field in ("max_body_bytes", "max_upload_bytes"):
            largest = info.data.get(field)
            if largest is not None and value < largest:
                raise ValueError(
                    f"is below {ENV_PREFIX}{field.upper()} ({largest:,}): a body of the largest allowed size could "
                    "never be held; make it at least that"
                )
        return value

    @field_validator("tokenizer_dir", "data_dir", mode="before")
    @classmethod
    def _not_empty(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str) and not value.strip():  # Path("") would quietly be the current folder
            fix = {
                "tokenizer_dir": f"unset it to use the shipped tokenizers, or give the folder holding {MANIFEST_NAME}",
                "data_dir": "unset it to use ~/.local/share/tokenprism, or give a folder path",
            }[_field(info)]
            raise ValueError(f"is empty; {fix}")
        return value

    @field_validator("tokenizer_dir")
    @classmethod
    def _holds_the_manifest(cls, value: Path) -> Path:
        fix = f"give the folder holding {MANIFEST_NAME} and the shipped tokenizer files, or unset it"
        problem = _folder_problem(value) or _folder_problem(value / MANIFEST_NAME, want_file=True)
        if problem:
            raise ValueError(f"{problem}; {fix}")
        return value

    @field_validator("data_dir")
    @classmethod
    def _a_folder_or_nothing_yet(cls, value: Path) -> Path:
        problem = _folder_problem(value)
        if problem and problem != "does not exist":  # a missing folder is made on first write
            raise ValueError(f"{problem}; give a folder path (it is created when first needed)")
        return value

    @property
    def user_tokenizer_dir(self) -> Path:
        return self.data_dir / "tokenizers"

    @property
    def share_store_path(self) -> Path:
        return self.data_dir / "shares.sqlite3"


def _folder_problem(path: Path, want_file: bool = False) -> str | None:
    """None when `path` is an existing folder (or file), else what is wrong, phrased to follow its name."""
    try:
        if path.is_file() if want_file else path.is_dir():
            return None
        if want_file:
            return f"has no {path.name}"
        return "is not a folder" if path.exists() else "does not exist"
    except OSError as error:
        return f"cannot be checked ({error.strerror or error})"


def _one_line(error: ValidationError, given: set[str]) -> str:
    """The first refused value as `NAME=value <what is wrong>; <fix>`, and how many more there are."""
    problems = error.errors(include_url=False)
    first = problems[0]
    field = str(first["loc"][0]) if first["loc"] else "?"
    name = field if field in given else ENV_PREFIX + field.upper()
    if first["type"] == "value_error":
        problem = str(first["ctx"]["error"])
    elif field in LIMITS:
        kind = "a number" if isinstance(LIMITS[field][0], float) else "a whole number"
        problem = f"is not {kind}; {_allowed(field)}"
    elif first["type"] == "extra_forbidden":
        problem = f"is not a setting; use one of {', '.join(Settings.model_fields)}"
    else:
        problem = f"is refused ({first['msg']})"
    more = len(problems) - 1
    return f"{name}={_shown(first.get('input'))} {problem}" + (
        f" (and {more} more bad setting{'s' * (more > 1)})" if more else ""
    )


def _shown(value: Any) -> str:
    """A value as written in a shell: bare if plain, else quoted with escapes, and never long."""
    text = str(value)
    if len(text) > 200:
        text = text[:197] + "..."
    return text if re.fullmatch(r"[\w.,:/+@%=-]+", text) else json.dumps(text, ensure_ascii=not text.isprintable())


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def _field(info: ValidationInfo) -> str:
    """The name of the field a field validator checks (pydantic always gives it there)."""
    assert info.field_name is not None
    return info.field_name

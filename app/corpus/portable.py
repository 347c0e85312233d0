"""Tokenizers as they travel to worker processes: built-ins by name, the others by file.

A built-in travels as its name: every worker has the package's tokenizer files and
rebuilds it through its own registry (verified by sha256, built once per process). A
tokenizer that was trained or added travels as the tokenizer itself, whose pickle is its
file (a `.bpe` model's text, a tokenizer.json, ranks; see each backend's `__reduce__`),
so a worker on another machine needs no access to this machine's data directory. The
runner sends the specs once per worker, not once per task.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.tokenizers.base import Tokenizer
from app.tokenizers.registry import Registry, get_registry


@dataclass(frozen=True)
class TokenizerSpec:
    name: str  # canonical (registry.resolve)
    tokenizer: Tokenizer | None = None  # None for a built-in: rebuilt by name where it runs

    def get(self) -> Tokenizer:
        return self.tokenizer if self.tokenizer is not None else get_registry().get(self.name)


def specs_for(names: list[str], registry: Registry | None = None) -> tuple[TokenizerSpec, ...]:
    """Specs for tokenizer or model names (resolved here, so a bad name fails before any work)."""
    registry = registry or get_registry()
    canonical = list(dict.fromkeys(registry.resolve(name) for name in names))
    return tuple(
        TokenizerSpec(name) if registry.is_builtin(name) else TokenizerSpec(name, registry.get(name))
        for name in canonical
    )

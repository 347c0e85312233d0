"""Which shipped tokenizer files come from an installed package rather than the repository
(PACKAGE_FILES, PINNED) and the hint a missing one's error gives (`missing_hint`): the list both
the file reader (files.py) and the copier (package_files.py) need, below both.
Left out: finding and copying the files (package_files.py).
"""

from __future__ import annotations

# our file name in tokenizers/ -> (package, path inside it)
PACKAGE_FILES = {
    "llama3.tiktoken": ("llama_models", "llama3/tokenizer.model"),
    "llama4.tiktoken": ("llama_models", "llama4/tokenizer.model"),
}
PINNED = {"llama_models": "llama-models==0.3.0"}


def missing_hint(name: str) -> str | None:
    """How to get `name` when it is one of these files, for the error that says it is missing."""
    if name not in PACKAGE_FILES:
        return None
    package = PACKAGE_FILES[name][0]
    return (
        f"run `make setup` (it copies {name} from the installed {PINNED[package]}, not kept in tokenprism's repository)"
    )

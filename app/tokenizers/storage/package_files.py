"""Tokenizer files tokenprism uses but does not keep in git: Meta's Llama 3 and Llama 4
`tokenizer.model` files, Llama Materials under the Meta Llama 3 and Llama 4 Community
Licenses, which come with the pinned PyPI package `llama-models==0.3.0` (a test extra).

`make setup` runs `python -m app.tokenizers.storage.package_files`: each file is copied from the
installed package into tokenizers/ (git ignores the copies), checked against its sha256 in
MANIFEST.tsv and written atomically. The package is found with `importlib.util.find_spec`
(its code is never imported or run, here or at run time). A missing copy is a
`TokenizerFileError` that says to run `make setup` (files.py asks package_list.py's `missing_hint`).
Left out: fetching anything from anywhere but the installed package.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

from app.settings import get_settings
from app.tokenizers.storage.files import read_manifest, write_atomically
from app.tokenizers.storage.package_list import PACKAGE_FILES, PINNED, missing_hint

__all__ = ["PACKAGE_FILES", "PINNED", "copy_all", "missing_hint", "package_file"]


def package_file(package: str, relative: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{PINNED[package]} is not installed; `make setup` installs it with the test extras")
    return Path(next(iter(spec.submodule_search_locations))) / relative


def copy_all(tokenizer_dir: Path) -> list[str]:
    """Copy every missing or wrong file; the names copied."""
    expected = read_manifest(tokenizer_dir)
    copied = []
    for name, (package, relative) in PACKAGE_FILES.items():
        target = tokenizer_dir / name
        if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == expected[name]:
            continue
        data = package_file(package, relative).read_bytes()
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected[name]:
            raise SystemExit(
                f"{package}'s {relative} has sha256 {actual}, not {expected[name]} (MANIFEST.tsv): "
                f"install {PINNED[package]} exactly"
            )
        write_atomically(target, data, overwrite=True)
        copied.append(name)
    return copied


if __name__ == "__main__":
    done = copy_all(get_settings().tokenizer_dir)
    print(f"copied {', '.join(done)} into tokenizers/" if done else "the package files are in place", file=sys.stderr)

"""Meta's Llama files are copied from the pinned package at set-up, never redistributed in git."""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import pytest

from app.errors import TokenizerFileError
from app.settings import REPO_ROOT
from app.tokenizers.storage.files import MANIFEST_NAME, read_manifest, read_verified
from app.tokenizers.storage.package_files import PACKAGE_FILES, copy_all

TOKENIZER_DIR = REPO_ROOT / "tokenizers"


def test_copies_every_file_from_the_package_checked_by_its_sha256(tmp_path):
    shutil.copy(TOKENIZER_DIR / MANIFEST_NAME, tmp_path / MANIFEST_NAME)
    assert sorted(copy_all(tmp_path)) == sorted(PACKAGE_FILES)
    manifest = read_manifest(tmp_path)
    for name in PACKAGE_FILES:
        assert hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() == manifest[name]
    assert copy_all(tmp_path) == []  # in place already: nothing to do


def test_a_missing_copy_says_to_run_make_setup(tmp_path):
    shutil.copy(TOKENIZER_DIR / MANIFEST_NAME, tmp_path / MANIFEST_NAME)
    with pytest.raises(TokenizerFileError) as caught:
        read_verified("llama3.tiktoken", tmp_path)
    assert "make setup" in caught.value.message and "llama-models==0.3.0" in caught.value.message


@pytest.mark.parametrize("name", sorted(PACKAGE_FILES))
def test_the_copies_are_not_in_git(name):
    tracked = subprocess.run(["git", "ls-files", f"tokenizers/{name}*"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert tracked.returncode == 0 and tracked.stdout == ""

"""LICENSE and THIRD_PARTY.md against what tokenizers/ holds and MANIFEST.tsv lists.

Every file in tokenizers/ (but MANIFEST.tsv and what .gitignore lists: the copies `make
setup` makes) has its MANIFEST row, every MANIFEST row has its `### tokenizers/<name>` entry
in THIRD_PARTY.md naming the row's licence, and each licence the rows name has its text there
when the licence asks for it to be shipped. Left out: judging the licences themselves.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata

import pytest

from app.settings import REPO_ROOT
from app.tokenizers.storage.files import MANIFEST_NAME

TOKENIZERS = REPO_ROOT / "tokenizers"
NOTICES = REPO_ROOT / "THIRD_PARTY.md"
# licence (as MANIFEST names it) -> a line of its text that THIRD_PARTY.md must carry
SHIPPED_TEXTS = {
    "MIT": "Permission is hereby granted, free of charge, to any person obtaining a copy",
    "Apache-2.0": "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
    "Meta Llama 3 Community License": "META LLAMA 3 COMMUNITY LICENSE AGREEMENT",
    "Llama 4 Community License": "LLAMA 4 COMMUNITY LICENSE AGREEMENT",
}


def manifest_licences() -> dict[str, str]:
    """file name -> its licence as MANIFEST.tsv's last column names it (before any remark)."""
    rows = {}
    for line in (TOKENIZERS / MANIFEST_NAME).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _sha256, _source, licence = line.split("\t")
            rows[name] = re.split(r" \(|;", licence)[0].strip()
    return rows


def git_ignored_names() -> set[str]:
    lines = (REPO_ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    return {line.removeprefix("tokenizers/") for line in lines if line.startswith("tokenizers/")}


def notice_entries() -> dict[str, str]:
    """file name -> the text of its `### tokenizers/<name>` section in THIRD_PARTY.md."""
    text = NOTICES.read_text(encoding="utf-8")
    parts = re.split(r"^(### tokenizers/\S+|## .*)$", text, flags=re.MULTILINE)
    return {
        heading.removeprefix("### tokenizers/"): body
        for heading, body in zip(parts[1::2], parts[2::2], strict=True)
        if heading.startswith("### tokenizers/")
    }


def test_every_file_in_tokenizers_has_its_manifest_row():
    files = {path.name for path in TOKENIZERS.iterdir() if path.is_file()}
    unlisted = files - {MANIFEST_NAME} - git_ignored_names() - set(manifest_licences())
    assert not unlisted, f"add a row to tokenizers/{MANIFEST_NAME} (sha256, source, licence) for {sorted(unlisted)}"


def test_every_manifest_row_has_its_notice_entry_naming_its_licence():
    entries = notice_entries()
    for name, licence in manifest_licences().items():
        assert name in entries, f"THIRD_PARTY.md has no '### tokenizers/{name}' entry"
        assert licence in entries[name], f"THIRD_PARTY.md's entry for {name} does not name its licence {licence!r}"
    assert set(entries) <= set(manifest_licences()), "THIRD_PARTY.md has entries for files MANIFEST.tsv does not list"


def test_each_shipped_licence_text_is_in_the_notices():
    text = NOTICES.read_text(encoding="utf-8")
    named = set(manifest_licences().values())
    for licence, line in SHIPPED_TEXTS.items():
        if licence in named:
            assert line in text, f"THIRD_PARTY.md lacks the text of {licence}"
    assert named - set(SHIPPED_TEXTS) == {"published research results"}, "a new licence: say whether its text ships"


def test_the_apache_text_is_mistral_commons_own():
    try:
        shipped = metadata.distribution("mistral-common").read_text("licenses/LICENSE")
    except metadata.PackageNotFoundError:
        pytest.skip("mistral-common is not installed")
    assert shipped and shipped.strip() in NOTICES.read_text(encoding="utf-8")


def test_license_is_mit_as_pyproject_says():
    text = (REPO_ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "the tokenprism authors" in text
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"  # an SPDX expression
    assert metadata.metadata("tokenprism")["License-Expression"] == "MIT"  # as the build wrote it


def test_the_readme_links_both():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "(LICENSE)" in readme and "(THIRD_PARTY.md)" in readme


def test_the_served_swagger_bundle_has_its_licence_and_notice_beside_it():
    # Apache-2.0 section 4(d): a redistributed copy carries the NOTICE; make setup copies the
    # bundle into static/vendor/, which the app serves, so the licence texts go with it.
    bundles = sorted((REPO_ROOT / "static" / "vendor").glob("swagger-ui-*/swagger-ui-bundle.js"))
    assert bundles, "run make setup: it copies the Swagger UI bundle into static/vendor/"
    for bundle in bundles:
        beside = {p.name for p in bundle.parent.iterdir()}
        assert {"LICENSE", "NOTICE", "swagger-ui-bundle.js.LICENSE.txt"} <= beside, bundle.parent
        assert "SmartBear" in (bundle.parent / "NOTICE").read_text(encoding="utf-8")

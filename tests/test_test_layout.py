"""tests/ mirrors app/ (docs/layout.md): each test folder is named after an app/ package or is
one of the few that cut across them, and only the project-wide checks sit at the top.
Leaves the files inside each folder to judgement."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
APP = TESTS.parent / "app"

# Folders that test across app/: the engine against its references, the API over HTTP, the
# pages in Chromium, the hooks a test child process loads (no tests of its own), and the
# benchmarks' own helpers (bench/, not app/).
ACROSS = {"engine", "api", "browser", "hooks", "bench"}
# Checks of the project as a whole (app/settings.py against docs/, the docs' own links).
TOP_LEVEL = {
    "test_architecture_doc.py",
    "test_docs_links.py",
    "test_layers.py",
    "test_notices.py",
    "test_settings.py",
    "test_settings_documented.py",
    "test_test_layout.py",
}


def test_every_test_folder_mirrors_an_app_package_or_is_a_known_cross_cutting_one():
    packages = {p.name for p in APP.iterdir() if (p / "__init__.py").is_file()}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders - packages - ACROSS == set(), "name a test folder after the app/ package it tests"


def test_only_the_project_wide_checks_are_top_level_test_files():
    top = {p.name for p in TESTS.glob("test_*.py")}
    assert top - TOP_LEVEL == set(), "move the test file into the folder of the app/ package it tests"


def test_the_tokenizers_folder_does_not_hide_the_hugging_face_package():
    # tests/ is on sys.path while pytest runs (the top-level conftest.py): a regular package
    # tests/tokenizers would be imported in place of Hugging Face's `tokenizers`.
    assert not (TESTS / "tokenizers" / "__init__.py").exists()
    import tokenizers

    assert hasattr(tokenizers, "Tokenizer")

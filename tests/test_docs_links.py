"""The README is a short door to the docs: every relative link in README.md and docs/*.md
reaches a file of the checkout (and, into a Markdown page, a heading there), every docs page
is linked from the README, and the README stays short and says how to run the app.
Links to other sites are not followed (the tests run offline)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.settings import REPO_ROOT

README = REPO_ROOT / "README.md"
PAGES = sorted((REPO_ROOT / "docs").glob("*.md"))
README_MAX_LINES = 150
FIRST_SCREEN_LINES = 40
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # http:, https:, mailto:


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans, where a link is a link."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", text, flags=re.M):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    return [target for target in LINK.findall(prose(page.read_text(encoding="utf-8"))) if not EXTERNAL.match(target)]


CASES = [(page, target) for page in [README, *PAGES] for target in links(page)]


def test_the_docs_have_links_to_check():
    assert len(CASES) > 20


@pytest.mark.parametrize("page, target", CASES, ids=[f"{p.name}->{t}" for p, t in CASES])
def test_a_relative_link_reaches_a_file_and_its_heading(page, target):
    path, _, anchor = target.partition("#")
    dest = (page.parent / path).resolve() if path else page
    assert dest.exists(), f"{page.name} links to {target}, but {path} does not exist"
    assert dest.is_relative_to(REPO_ROOT.resolve()), f"{page.name} links outside the checkout: {target}"
    if anchor and dest.suffix == ".md":
        assert anchor in anchors(dest), f"{page.name} links to #{anchor}, a heading {dest.name} does not have"


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(REPO_ROOT / target.partition("#")[0]).resolve() for target in links(README)}
    assert [page.name for page in PAGES if page.resolve() not in linked] == []


def test_the_readme_fits_in_two_screens():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, f"README.md has {len(lines)} lines; move detail into docs/"


def test_the_first_screen_says_how_to_run_it_and_where_to_read_more():
    first_screen = "\n".join(README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN_LINES])
    for needed in (
        "make run",
        "make test",
        "Python 3.11",
        "Node.js",
        "npm",
        "HOST=",
        "PORT=",
        "TOKENPRISM_DATA_DIR",
        "127.0.0.1:8000",
        "](docs/",
    ):
        assert needed in first_screen, f"the first {FIRST_SCREEN_LINES} lines of README.md do not say {needed}"

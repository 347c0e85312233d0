"""templates/ is grouped by concern like app/web/: every template file is named somewhere (by the
Python under app/ or by another template's include, extends, import or from), every name given
exists, only the layout and its two standalone pages stay at the top, and shared/ holds only
partials that more than one folder uses. It reads names statically: a template name built at run
time would not be seen, so there must be none (checked too)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from jinja2 import Environment, meta

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
TOP_LEVEL = {"base.html", "error.html", "docs.html"}


def template_files() -> set[str]:
    return {p.relative_to(TEMPLATES).as_posix() for p in TEMPLATES.rglob("*") if p.is_file()}


def python_names() -> dict[str, set[str]]:
    """Each `.html` string constant in app/ -> the modules that hold it."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in (ROOT / "app").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith(".html"):
                found[node.value].add(path.relative_to(ROOT).as_posix())
    return found


def template_names() -> dict[str, set[str | None]]:
    """Each template named by another template -> the templates naming it (None: a name built at run time)."""
    env = Environment()
    found: dict[str, set[str | None]] = defaultdict(set)
    for name in template_files():
        for ref in meta.find_referenced_templates(env.parse((TEMPLATES / name).read_text(encoding="utf-8"))):
            found[ref if ref is not None else f"<dynamic in {name}>"].add(name)
    return found


def test_every_template_is_named_somewhere():
    named = set(python_names()) | set(template_names())
    assert template_files() - named == set()


def test_every_name_given_exists():
    files = template_files()
    assert {name: sorted(where) for name, where in python_names().items() if name not in files} == {}
    assert {name: sorted(where) for name, where in template_names().items() if name not in files} == {}


def test_partials_and_pages_live_in_their_concerns_folder():
    assert {name for name in template_files() if "/" not in name} == TOP_LEVEL
    assert {name for name in template_files() if name.count("/") > 1} == set()  # one floor of folders


def test_shared_holds_only_partials_used_by_several_folders():
    users = template_names()
    python = python_names()
    for name in template_files():
        if not name.startswith("shared/"):
            continue
        assert name.split("/")[1].startswith("_"), f"{name}: shared/ holds partials only"
        folders = {user.split("/")[0] for user in users.get(name, ())} | {f"py:{m}" for m in python.get(name, ())}
        assert len(folders) >= 2, f"{name} is used only by {folders}: move it into that folder"

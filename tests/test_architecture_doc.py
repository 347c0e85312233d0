"""docs/architecture.md stays true: every repository path it names exists (and every
`path.py:name` names a function, class or constant defined there), a placeholder path
(`app/chat/NAME_format.py`) points into a folder that exists, and its floors table is
exactly the table tests/test_layers.py enforces (read from there, not copied).
Leaves the prose itself to review."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import tests.test_layers as layers

ROOT = Path(__file__).resolve().parent.parent
NOTE = ROOT / "docs" / "architecture.md"
TOP_FOLDERS = ("app", "templates", "tests", "static", "docs", "tokenizers", "bench")
# A repository path, optionally `:name` or `:Class.method` after a .py file. Not inside a
# longer path or word (`../app/x.py` counts from `app`).
PATH = re.compile(rf"(?<![\w./-])(?:\.\./)*((?:{'|'.join(TOP_FOLDERS)})/[\w./-]*)(?::([A-Za-z_][\w.]*))?")
PLACEHOLDER = "NAME"  # `templates/NAME/` is a pattern for a new file, not a path
FLOOR_ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]*)\|", re.M)
MODULE = re.compile(r"`(app(?:\.\w+)*)`")


def named_paths(text: str) -> list[tuple[str, str | None]]:
    """(path, name or None) for every repository path the text names, in order."""
    return [(path.rstrip("."), name.rstrip(".") if name else None) for path, name in PATH.findall(text)]


def defined_names(node: ast.stmt) -> set[str]:
    """The names a statement of a module or class body defines (def, class, NAME = or NAME: type =)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return {target.id for target in targets if isinstance(target, ast.Name)}


def defines(source: str, dotted: str) -> bool:
    """Whether `dotted` (`f`, `Class`, `Class.method`, `CONSTANT`) is defined at the top of
    `source`, the later parts inside the class before them."""
    body: list[ast.stmt] = ast.parse(source).body
    for part in dotted.split("."):
        found = [node for node in body if part in defined_names(node)]
        if not found:
            return False
        body = getattr(found[-1], "body", [])
    return True


def problems(text: str, root: Path) -> list[str]:
    """What the text names that `root` does not have."""
    found = []
    for path, name in named_paths(text):
        if PLACEHOLDER in path:
            folder = path.split(PLACEHOLDER)[0].rpartition("/")[0]  # tests/chat/test_NAME.py: tests/chat
            if not (root / folder).is_dir():
                found.append(f"{path}: no folder {folder}")
            continue
        target = root / path
        if not target.exists():
            found.append(f"{path}: no such file or folder")
        elif name is not None and not (target.suffix == ".py" and defines(target.read_text(encoding="utf-8"), name)):
            found.append(f"{path}:{name}: not defined there")
    return found


def floors_of(text: str) -> dict[str, int]:
    """prefix -> floor, as the note's floors table gives them (a prefix listed twice fails)."""
    table: dict[str, int] = {}
    for floor, cell in FLOOR_ROW.findall(text):
        for prefix in MODULE.findall(cell):
            assert prefix not in table, f"{prefix} is in two rows of the floors table"
            table[prefix] = int(floor)
    return table


def test_the_note_exists_and_is_linked_both_ways_with_the_layout():
    assert NOTE.is_file()
    assert "architecture.md" in (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    assert "docs/architecture.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(layout.md)" in NOTE.read_text(encoding="utf-8")


def test_every_path_and_name_the_note_gives_exists():
    text = NOTE.read_text(encoding="utf-8")
    assert len(named_paths(text)) > 50  # the walk-throughs name their files
    assert problems(text, ROOT) == []


def test_the_floors_table_is_the_one_test_layers_enforces():
    text = NOTE.read_text(encoding="utf-8")
    assert "tests/test_layers.py" in text
    assert floors_of(text) == dict(layers.FLOORS)


def test_a_removed_file_a_removed_name_and_a_missing_folder_are_caught(tmp_path):
    (tmp_path / "app" / "web").mkdir(parents=True)
    (tmp_path / "app" / "web" / "pool.py").write_text("class WorkPool:\n    def run(self): ...\nLIMIT = 1\n")
    text = (
        "`app/web/pool.py:WorkPool.run`, app/web/pool.py:LIMIT, `app/web/`, ../app/web/pool.py. "
        "`app/web/gone.py`, `app/web/pool.py:WorkPool.stop`, `app/web/pool.py:run`, `templates/NAME/x.html`."
    )
    assert problems(text, tmp_path) == [
        "app/web/gone.py: no such file or folder",
        "app/web/pool.py:WorkPool.stop: not defined there",
        "app/web/pool.py:run: not defined there",
        "templates/NAME/x.html: no folder templates",
    ]


def test_a_floor_moved_in_the_table_is_caught():
    table = "| floor | prefixes |\n|---|---|\n| 0 | `app.errors`, `app.settings` |\n| 3 | `app.bpe` |\n"
    assert floors_of(table) == {"app.errors": 0, "app.settings": 0, "app.bpe": 3}
    assert floors_of(table) != dict(layers.FLOORS)

"""The floors of app/, bottom up, and the rule that keeps them: a module imports only from
its own floor or those below (top-level imports and imports inside functions alike; a module
imports its package's __init__, which Python runs first), no modules import each other in a
circle, and none reads another object's private fields. Each module's floor is that of the longest prefix in
FLOORS naming it; a module no prefix names fails the test (add it where it belongs). And no module
passes MAX_MODULE_LINES, nor does a C source (.c, .h) of app/."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"

FLOORS = [
    # 0: what everything may use
    ("app.errors", 0),
    ("app.settings", 0),
    ("app.sqlite_wal", 0),
    ("app.pricing.money", 0),
    # 1: running untrusted work in a child process
    ("app.sandbox", 1),
    # 2: the engine's own types and files
    ("app.tokenizers.tokens", 2),
    ("app.tokenizers.base", 2),
    ("app.tokenizers.chunks", 2),
    ("app.tokenizers.storage", 2),
    ("app.tokenizers.openai_encodings", 2),
    ("app.tokenizers.models", 2),
    ("app.tokenizers.lecture.scripts", 2),
    ("app.tokenizers.budget", 2),
    # 3: the tokenizer kinds: our BPE and the backends over the reference libraries
    ("app.bpe", 3),
    ("app.backends", 3),
    # 4: chat formats, over any Tokenizer
    ("app.chat", 4),
    # 5: the registry of tokenizers (built-ins, trained and added files) and what reads backends whole
    ("app.tokenizers", 5),
    # 6: the features over tokenizers
    ("app.inspect", 6),
    ("app.pricing", 6),
    ("app.corpus", 6),
    ("app.jobs", 6),
    ("app.shares", 6),
    # 7: the web edge (HTTP hardening, no pages) and the work pool the edge hands client drops to
    ("app.web.edge", 7),
    ("app.web.pool", 7),
    # 8: the web: services, API and pages
    ("app.web", 8),
    # 9: the entry points
    ("app.cli", 9),
    ("app.main", 9),
    ("app.local_server", 9),
    ("app", 9),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(APP.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in APP.rglob("*.py")}


def _known(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    """The app modules `module` imports anywhere in its body; `from package import name` counts
    as the submodule when `name` is one, else as the package."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str | None] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(_known(alias.name) for alias in node.names if alias.name.split(".")[0] == "app")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                above = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(above + ([base] if base else []))
            if base.split(".")[0] != "app":
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in MODULES else _known(base))
    return {name for name in found if name is not None and name != module}


GRAPH = {module: imports_of(module) for module in MODULES}


def loaded_by(module: str) -> set[str]:
    """What importing `module` loads: its own imports and those of every package __init__ above it,
    which Python runs first (so a package that re-exports from a high floor lifts all its modules)."""
    found = set(GRAPH[module])
    package = module.rpartition(".")[0]
    while package:
        found |= GRAPH.get(package, set())
        package = package.rpartition(".")[0]
    return found - {module}


def floor_of(module: str) -> int | None:
    best = max(
        (prefix for prefix, _ in FLOORS if module == prefix or module.startswith(prefix + ".")), key=len, default=None
    )
    return None if best is None else dict(FLOORS)[best]


def test_every_module_has_a_floor():
    assert [module for module in sorted(MODULES) if floor_of(module) is None] == []


def test_no_module_imports_from_a_floor_above_it():
    upward = [
        f"{module} (floor {floor_of(module)}) imports {other} (floor {floor_of(other)})"
        for module in sorted(GRAPH)
        for other in sorted(loaded_by(module))
        if floor_of(other) > floor_of(module)
    ]
    assert upward == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_cycles_are_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles():
    assert cycles(GRAPH) == []


NAMEDTUPLE_AND_OS = {"_replace", "_make", "_asdict", "_fields", "_exit"}  # public despite the underscore


def foreign_private_reads(module: str) -> list[str]:
    """Where `module` reads a private attribute (`x._name`) of anything but `self`, `cls` or a class
    of its own."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    own = {"self", "cls"} | {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and node.attr not in NAMEDTUPLE_AND_OS
            and not (isinstance(node.value, ast.Name) and node.value.id in own)
        ):
            found.append(f"{module}:{node.lineno} .{node.attr}")
    return found


def test_no_module_reads_another_objects_private_fields():
    assert [where for module in sorted(MODULES) for where in foreign_private_reads(module)] == []


MAX_MODULE_LINES = 300  # the house rule (STYLE.md): past it, a module is split by concern


def test_every_module_stays_under_the_house_size():
    long = {
        name: n
        for name, path in MODULES.items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}, f"split these by concern (at most {MAX_MODULE_LINES} lines each)"


def test_every_c_source_stays_under_the_house_size_too():
    sources = [*APP.rglob("*.c"), *APP.rglob("*.h")]
    assert len(sources) >= 10  # the engine, the trainer, the pretokenizer and their headers
    long = {
        str(path.relative_to(APP)): n
        for path in sources
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}, f"split these by concern (at most {MAX_MODULE_LINES} lines each)"

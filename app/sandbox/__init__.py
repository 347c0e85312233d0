"""User regular expressions, compiled and run where they cannot hurt the server.

A pattern a user sends (a vocabulary search) or a file brings (a split pattern) can need
gigabytes to compile (`(?:(?:a{1000}){1000}){1000}`) or hours to match. Nothing here
compiles one in the calling process before a sandbox child (runner.py, child.py) has shown
that it compiles within child.COMPILE_BYTES and COMPILE_WALL_S:

- `check_pattern(pattern, what, fix)`: the number of groups, or an `InvalidInput` (422) that
  names the pattern, says why (not valid, too large to compile, too slow) and gives `fix`.
  With `probe=True` the child also times it on adversarial texts (backtrack.py). Verdicts
  are kept per pattern (VERDICTS of them, least recently used dropped);
- `search_texts(key, load, pattern, budget_s, what, fix)`: a vocabulary regex search run in
  the child, over token texts sent once per vocabulary (`load()` gives them) and kept there.

Left out: bounding the matching of a checked split pattern in the server (app/bpe/split.py
runs it under `regex`'s timeout on one text at a time).
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable

from app.errors import InvalidInput, excerpt
from app.sandbox import runner

COMPILE_WALL_S = 2.0  # compiling takes milliseconds; this is for a loaded machine
PROBE_WALL_S = 60.0  # backtrack.TOTAL_S of CPU time, with room for a machine busy with other work
SEARCH_GRACE_S = 3.0  # over a search's own budget, before its child is killed
VERDICTS = 1024
_verdicts: OrderedDict[tuple[str, bool], tuple] = OrderedDict()
_verdicts_lock = threading.Lock()
_WHY = {
    "invalid": "is not a valid regular expression",
    "memory": "is too large to compile",
    "slow": "is too slow",
    "died": "crashed the regular expression engine",
}


def refusal(what: str, pattern: str, answer: tuple, fix: str) -> InvalidInput:
    problem, detail = answer
    return InvalidInput(
        f"{what} {excerpt(pattern)} {_WHY.get(problem, 'is refused')}: {detail}; {fix}",
        code=f"regex_{problem}" if problem in _WHY else None,
    )


def check_pattern(pattern: str, what: str, fix: str, probe: bool = False) -> int:
    key = (pattern, probe)
    with _verdicts_lock:
        answer = _verdicts.get(key)
        if answer is not None:
            _verdicts.move_to_end(key)
    if answer is None:
        answer = _ask(("probe" if probe else "compile", pattern), PROBE_WALL_S if probe else COMPILE_WALL_S)
        with _verdicts_lock:
            if answer[0] != "died":  # perhaps not the pattern's doing: ask again next time
                _verdicts[key] = answer
            while len(_verdicts) > VERDICTS:
                _verdicts.popitem(last=False)
    if answer[0] != "ok":
        raise refusal(what, pattern, answer, fix)
    return answer[1]


def search_texts(
    key: str, load: Callable[[], tuple[bytes, bytes]], pattern: str, budget_s: float, what: str, fix: str
) -> list[int]:
    """Positions of the texts (kept in the child under `key`) that `pattern` matches somewhere."""
    request = ("search", key, pattern, budget_s)
    wall = COMPILE_WALL_S + budget_s + SEARCH_GRACE_S
    answer = _ask(request, wall)
    if answer[0] == "missing":  # this child has not seen the vocabulary yet (or dropped it)
        answer = _ask((*request, *load()), wall)
    if answer[0] != "ok":
        raise refusal(what, pattern, answer, fix)
    found = array("I")
    found.frombytes(answer[1])
    return found.tolist()


def _ask(request: tuple, timeout_s: float) -> tuple:
    try:
        return runner.shared().call(request, timeout_s)
    except runner.SandboxTimeout:
        return ("slow", f"it did not finish within {timeout_s:g} s")
    except runner.SandboxDied:
        return ("died", "the process running it stopped")

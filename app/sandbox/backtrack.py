"""Does a regular expression take super-linear time? A shape check and a timed probe.

A pattern from a user's file runs over texts of up to 500,000 characters, and a
backtracking engine (Oniguruma in `tokenizers`, `regex`, fancy-regex) can take seconds to
hours on the wrong text: `(q|qq)+r` on a run of `q`s doubles its work every character or
two. Two checks, each returning a short reason or None:

- `shape_problem(pattern)`: the shapes known to backtrack, read from the pattern's text: a
  group repeated without bound that holds an unbounded repeat and has a branch of repeats
  only (`(a+)+`, `(?:\\s*x+)*`; `(?:'\\w+)*` has its fixed `'` and passes), or
  whose alternatives can match the same text (`(q|qq)+`: one is a prefix of another).
  Atomic groups and possessive repeats are not flagged.
- `probe_problem(pattern, run)`: `run(text)` timed on adversarial texts built from the
  pattern's own literal characters and a few stand-ins for classes (runs of one character,
  alternations of two, with and without a final character nothing expects), at lengths
  growing from 8 to 16,384, timed in the thread's CPU time. A text costing over FLOOR_S + PER_CHAR_S per character up to
  SHORT_LENGTH (a linear pattern costs ~0.04 us a character), LONG_PER_CHAR_S past it (where a
  whole pre-tokenizer pipeline's own cost shows, and a busy machine's), a cost that grows over GROWTH times for a
  fourfold longer text, or an error from the engine (Oniguruma's retry limit) refuses it.

Left out: proving linearity (neither check can); a pattern slow only on text unlike
these probes passes, and is then bounded where it runs (timeouts, threads off the loop).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from itertools import combinations
from typing import Any

LENGTHS = (8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 1024, 4096, 16384)
FLOOR_S = 0.01
PER_CHAR_S = 5e-6  # up to SHORT_LENGTH characters, where backtracking shows first
SHORT_LENGTH = 1024
LONG_PER_CHAR_S = 50e-6  # longer texts: a linear pipeline can cost several us a character (deepseek_v4's
# splits make a piece per punctuation mark), twice that on a busy machine; the growth check does the rest
GROWTH = 12.0  # time ratio between lengths 4,096 and 16,384 (linear: ~4, quadratic: ~16)
GROWTH_FLOOR_S = 0.002  # below this the ratio is noise
TOTAL_S = 20.0  # one pattern's whole probe, in this thread's CPU time (a busy machine must not refuse good patterns)
STAND_INS = " a1\n.,"  # a space, a letter, a digit, a newline, punctuation
STOPS = ("", "\x01")
MAX_CHARS = 10
_CLASS_ESCAPES = set("dDwWsShHpPXRNkKgbBAzZGQE")


def literal_chars(pattern: str) -> list[str]:
    """The pattern's own characters (escaped ones too), then the stand-ins; at most MAX_CHARS."""
    found, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt not in _CLASS_ESCAPES and not nxt.isalnum():
                found.append(nxt)
            i += 2
            continue
        if char not in "()[]{}|*+?^$.-:<>=!,":  # syntax, not text (some are text too: the stand-ins cover them)
            found.append(char)
        i += 1
    chars = list(dict.fromkeys(found))[: MAX_CHARS - 4] + list(STAND_INS)
    return list(dict.fromkeys(chars))[:MAX_CHARS]


def adversarial_texts(pattern: str) -> list[tuple[str, str]]:
    """(unit, stop) pairs: a text is the unit repeated to a length, then the stop."""
    chars = literal_chars(pattern)
    units = chars + [a + b for a, b in combinations(chars, 2)]
    return [(unit, stop) for unit in units for stop in STOPS]


def probe_problem(pattern: str, run: Callable[[str], object]) -> str | None:
    collecting = gc.isenabled()
    gc.disable()  # a collection in the middle of a timing is noise
    try:
        return _probe(pattern, run)
    finally:
        if collecting:
            gc.enable()


def _probe(pattern: str, run: Callable[[str], object]) -> str | None:
    started = time.thread_time()
    for unit, stop in adversarial_texts(pattern):
        costs = {}
        for length in LENGTHS:
            text = (unit * (length // len(unit) + 1))[:length] + stop
            shown = f"{unit[:2]!r} x {length}{' + ' + repr(stop) if stop else ''}"
            try:
                costs[length] = cost = _time(run, text)
            except BaseException as error:  # the engine's own limit (a pyo3 PanicException), a timeout
                if not isinstance(error, Exception) and type(error).__name__ != "PanicException":
                    raise
                return f"the regex engine gives up on it for a text of {shown} ({_first_line(error)})"
            limit = FLOOR_S + (PER_CHAR_S if length <= SHORT_LENGTH else LONG_PER_CHAR_S) * length
            if cost > limit:  # timed again, every run: a pause of the machine is not backtracking
                cost = _time(run, text, enough=float("inf"))
            if cost > limit:
                return f"it takes {cost * 1000:.0f} ms on a text of {shown} (it backtracks)"
            if time.thread_time() - started > TOTAL_S:
                return f"probing it took over {TOTAL_S:g} s of CPU time"
        if _grows(run, unit, stop, costs[LENGTHS[-2]], costs[LENGTHS[-1]]):
            return (
                f"its time grows over {GROWTH:.0f} times for a 4 times longer text of {unit[:2]!r}s "
                "(super-linear: it backtracks)"
            )
    return None


def _grows(run: Callable[[str], object], unit: str, stop: str, low: float, high: float) -> bool:
    """Whether the cost from the last length but one to the last grows super-linearly; a
    suspect ratio is measured again (another process may have had the CPU)."""
    for _ in range(3):
        if high < GROWTH_FLOOR_S or high < GROWTH * low:
            return False
        texts = [(unit * (n // len(unit) + 1))[:n] + stop for n in LENGTHS[-2:]]
        low, high = (_time(run, text, runs=5) for text in texts)
    return True


def _time(run: Callable[[str], object], text: str, runs: int = 3, enough: float | None = None) -> float:
    """The least CPU time of this thread `run(text)` took in `runs` runs, stopping early once one
    takes over `enough` (FLOOR_S when None): time spent waiting for a busy CPU is not counted (wall time was, and
    refused linear patterns when other processes had the CPU). A virtual machine's vCPU stopped
    by its host still counts, once: a cost over the limit is timed again, all runs."""
    best = float("inf")
    for _ in range(runs):
        start = time.thread_time()
        run(text)
        best = min(best, time.thread_time() - start)
        if best > (FLOOR_S if enough is None else enough):
            break
    return best


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:120] if lines else type(error).__name__


# -- shapes ---------------------------------------------------------------------------------


_Atom = list[Any]  # [text: str, repeated: bool], changed in place when a quantifier follows


class _Group:
    def __init__(self, atomic: bool):
        self.atomic = atomic
        self.unbounded = False  # holds an unbounded repeat
        self.alternatives: list[list[_Atom]] = [[]]  # each a list of atoms


def shape_problem(pattern: str) -> str | None:
    stack, i, n = [_Group(False)], 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            end = _escape_end(pattern, i)
            stack[-1].alternatives[-1].append([pattern[i:end], False])
            i = end
        elif char == "[":
            end = _class_end(pattern, i)
            stack[-1].alternatives[-1].append([pattern[i:end], False])
            i = end
        elif char == "(":
            end = _group_start_end(pattern, i)
            head = pattern[i + 1 : end]
            stack.append(_Group(atomic=head in ("?>", "?=", "?!", "?<=", "?<!")))  # lookarounds hold no repeats
            i = end
        elif char == ")" and len(stack) > 1:
            group = stack.pop()
            i += 1
            quant, i = _quantifier(pattern, i)
            unbounded = quant is not None and quant[0]
            if quant is not None and unbounded and not group.atomic and not quant[1]:
                if group.unbounded and any(all(atom[1] for atom in alt) for alt in group.alternatives):
                    return "a group repeated without bound holds a repeat without bound (nested quantifiers)"
                if _overlapping(group.alternatives):
                    return "a group repeated without bound has alternatives that match the same text"
            stack[-1].unbounded |= group.unbounded or bool(unbounded)
            stack[-1].alternatives[-1].append([f"({id(group)})", quant is not None])
        elif char == "|":
            stack[-1].alternatives.append([])
            i += 1
        elif char in "*+?{":
            quant, end = _quantifier(pattern, i)
            if quant is None:  # a literal "{"
                stack[-1].alternatives[-1].append([char, False])
                i += 1
                continue
            stack[-1].unbounded |= quant[0] and not quant[1]
            if stack[-1].alternatives[-1]:
                atom = stack[-1].alternatives[-1][-1]
                atom[0], atom[1] = atom[0] + pattern[i:end], True
            i = end
        else:
            stack[-1].alternatives[-1].append([char, False])
            i += 1
    return None


def _quantifier(pattern: str, i: int) -> tuple[tuple[bool, bool] | None, int]:
    """At `i`: ((unbounded, possessive), the index after it), or (None, i) for no quantifier."""
    if i >= len(pattern) or pattern[i] not in "*+?{":
        return None, i
    if pattern[i] == "{":
        end = pattern.find("}", i)
        body = pattern[i + 1 : end] if end > 0 else ""
        if not body or not all(c.isdigit() or c == "," for c in body):
            return None, i
        unbounded, i = body.endswith(","), end + 1
    else:
        unbounded, i = pattern[i] in "*+", i + 1
    possessive = i < len(pattern) and pattern[i] == "+"
    if i < len(pattern) and pattern[i] in "+?":
        i += 1
    return (unbounded, possessive), i


def _overlapping(alternatives: list[list[_Atom]]) -> bool:
    """Whether one alternative is a prefix of another (atom by atom): `q|qq`, `a|a`."""
    if len(alternatives) < 2:
        return False
    for a, b in combinations(alternatives, 2):
        short, long = (a, b) if len(a) <= len(b) else (b, a)
        if short and long[: len(short)] == short:
            return True
    return False


def _group_start_end(pattern: str, i: int) -> int:
    """The index after a group's opening: `(`, `(?:`, `(?i:`, `(?<name>`, `(?=`, `(?<!`..."""
    if pattern[i + 1 : i + 2] != "?":
        return i + 1
    for marker in ("?<=", "?<!", "?:", "?>", "?=", "?!", "?|"):
        if pattern.startswith(marker, i + 1):
            return i + 1 + len(marker)
    if pattern[i + 2 : i + 3] in ("<", "P", "'"):
        close = pattern.find(">" if pattern[i + 2] != "'" else "'", i + 3)
        return close + 1 if close > 0 else len(pattern)
    j = i + 2
    while j < len(pattern) and (pattern[j].isalpha() or pattern[j] == "-"):
        j += 1
    return j + 1 if pattern[j : j + 1] == ":" else j  # `(?i:` opens a group; `(?i)` closes at once


def _escape_end(pattern: str, i: int) -> int:
    if pattern[i + 1 : i + 2] in ("p", "P", "x", "k", "g") and pattern[i + 2 : i + 3] in ("{", "<"):
        close = pattern.find("}" if pattern[i + 2] == "{" else ">", i)
        return close + 1 if close > 0 else len(pattern)
    return min(i + 2, len(pattern))


def _class_end(pattern: str, i: int) -> int:
    depth, j = 0, i
    while j < len(pattern):
        char = pattern[j]
        if char == "\\":
            j += 2
            continue
        if char == "[":
            depth += 1
        elif char == "]" and j > i + 1 and not (j == i + 2 and pattern[i + 1] == "^"):
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(pattern)

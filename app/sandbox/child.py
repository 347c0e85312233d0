"""What the sandbox child does with user regexes, and its loop (app/sandbox/runner.py starts it).

`handle(request)` answers one request, a tuple:

- ("compile", pattern): whether `pattern` compiles within COMPILE_BYTES of memory, with
  how many groups; ("probe", pattern) also times it on adversarial texts (backtrack.py);
- ("search", key, pattern, budget_s[, blob, starts]): the positions of the vocabulary texts
  kept under `key` that `pattern` matches, within `budget_s` over all of them and
  MATCH_BYTES of memory. With `blob` and `starts` (a vocabulary's bytes joined, and where
  each token starts) the texts are made and kept first; at most KEPT_VOCABULARIES are kept.

An answer is ("ok", value) or (problem, detail) with problem one of "invalid", "memory",
"slow" or "missing" (no vocabulary under that key: send it with the search). `serve` runs the loop on
stdin and stdout; the upload-checking child calls `handle` in-process (it is limited already).
- ("template", source): whether a chat template parses; ("render", source, context,
  limit_chars, budget_s): its text (app/sandbox/templates.py, with its own answers).
Left out: any other user code.
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
import time
from array import array
from collections import OrderedDict
from multiprocessing.connection import Connection

import regex

from app.sandbox import templates
from app.sandbox.backtrack import probe_problem
from app.sandbox.limits import memory_bound

COMPILE_BYTES = 128 << 20
MATCH_BYTES = 256 << 20
PROBE_TIMEOUT_S = 0.5  # one probe text, in `regex`'s own timeout
KEPT_VOCABULARIES = 4
_vocabularies: OrderedDict[str, list[str]] = OrderedDict()


def handle(request: tuple):
    kind = request[0]
    if kind in ("compile", "probe"):
        compiled = _compile(request[1])
        if not isinstance(compiled, regex.Pattern):
            return compiled
        if kind == "probe":
            problem = probe_problem(request[1], lambda text: compiled.findall(text, timeout=PROBE_TIMEOUT_S))
            if problem:
                return ("slow", problem)
        return ("ok", compiled.groups)
    if kind == "search":
        key, pattern, budget_s = request[1:4]
        if len(request) > 4:
            _keep(key, *request[4:])
        if key not in _vocabularies:
            return ("missing", key)
        _vocabularies.move_to_end(key)
        compiled = _compile(pattern)
        return _search(compiled, _vocabularies[key], budget_s) if isinstance(compiled, regex.Pattern) else compiled
    if kind == "template":
        return templates.check(request[1])
    if kind == "render":
        return templates.render(*request[1:])
    raise ValueError(f"unknown sandbox request {kind!r}")


def _keep(key: str, blob: bytes, starts: bytes) -> None:
    offsets = array("I")
    offsets.frombytes(starts)
    _vocabularies[key] = [blob[a:b].decode("utf-8", "replace") for a, b in itertools.pairwise(offsets)]
    while len(_vocabularies) > KEPT_VOCABULARIES:
        _vocabularies.popitem(last=False)


def _compile(pattern: str):
    try:
        with memory_bound(COMPILE_BYTES):
            return regex.compile(pattern)
    except MemoryError:
        return ("memory", f"compiling it needs over {COMPILE_BYTES >> 20} MB")
    except (regex.error, OverflowError, RecursionError, ValueError) as error:
        return ("invalid", str(error))


def _search(compiled: regex.Pattern, texts: list[str], budget_s: float):
    found = array("I")
    try:
        with memory_bound(MATCH_BYTES):
            (_search_timed if _alarm["installed"] else _search_each_timed)(compiled, texts, budget_s, found)
    except TimeoutError:
        return ("slow", f"it took more than {budget_s:g} s over the vocabulary")
    except MemoryError:
        return ("memory", f"matching it needs over {MATCH_BYTES >> 20} MB")
    return ("ok", found.tobytes())


# serve() sets SIGALRM to raise TimeoutError while a search runs: one timer bounds a whole
# search, and `regex` lets the error through in the middle of a match. Its own timeout,
# asked of each text, costs ~2.5 us a call: 0.60 s instead of 0.11 s for "ab" over o200k_base.
_alarm = {"installed": False, "searching": False}


def _time_up(signum, frame) -> None:
    if _alarm["searching"]:
        raise TimeoutError


def _search_timed(compiled: regex.Pattern, texts: list[str], budget_s: float, found: array) -> None:
    search = compiled.search
    _alarm["searching"] = True
    signal.setitimer(signal.ITIMER_REAL, max(budget_s, 1e-6))
    try:
        for position, text in enumerate(texts):
            if search(text):
                found.append(position)
    finally:
        _alarm["searching"] = False  # a signal from here on is ignored: the timer is spent or cleared
        signal.setitimer(signal.ITIMER_REAL, 0)


def _search_each_timed(compiled: regex.Pattern, texts: list[str], budget_s: float, found: array) -> None:
    """Where no timer can be had (handle() called in a process that did not serve()):
    `regex`'s timeout on each text."""
    deadline, search = time.monotonic() + budget_s, compiled.search
    for position, text in enumerate(texts):
        if not position % 1024 and time.monotonic() > deadline:
            raise TimeoutError
        if search(text, timeout=max(deadline - time.monotonic(), 0.001)):
            found.append(position)


def serve(hard_memory: int) -> None:
    """The child's loop: answer requests on stdin, on stdout, until stdin closes."""
    import resource

    receiving, sending = Connection(os.dup(0), writable=False), Connection(os.dup(1), readable=False)
    sys.stdout = sys.stderr  # stdout carries answers only
    resource.setrlimit(resource.RLIMIT_AS, (hard_memory, hard_memory))
    signal.signal(signal.SIGALRM, _time_up)
    _alarm["installed"] = True
    sending.send(("ready", None))
    while True:
        try:
            request = receiving.recv()
        except (EOFError, OSError):
            return
        try:
            answer = handle(request)
        except MemoryError:
            answer = ("memory", "it needs more memory than the sandbox has")
        sending.send(answer)


if __name__ == "__main__":
    serve(int(sys.argv[1]))

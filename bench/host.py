"""What a benchmark's figures depend on besides our code: the machine's facts (cores, CPU model,
Python, the libraries raced) and how much two cores can give at all.

A virtual machine's two cores may be two hardware threads of one physical core, or share it
with neighbours: then no engine, ours or a peer, runs two threads at 2x one, and a "two threads
>= 1.8x one" goal cannot show. `two_core_ceiling` measures it in the run: a fixed loop of pure
Python arithmetic (no memory traffic to speak of) in one process alone, then in two processes at
once, each timing its own loop; the ceiling is the two processes' work over the alone one's
time, 2 x alone / slower of the two (2.00x on two free cores). Left out: memory bandwidth and
cache sharing, which lower the ceiling of a memory-bound engine further.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from contextlib import suppress
from importlib import metadata

# Each child waits for the start time it is given, then times this loop and prints its seconds.
_LOOP = """
import sys, time
start = float(sys.argv[1])
while time.time() < start:
    time.sleep(0.001)
begun = time.perf_counter()
total = 0
for k in range(int(sys.argv[2])):
    total += k * k
print(time.perf_counter() - begun)
"""


def machine_facts(libraries: tuple[str, ...]) -> dict[str, str]:
    """Cores, CPU model, Python version and each of `libraries`' installed version."""
    model = platform.processor() or "unknown"
    with suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as info:
        model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    facts = {"cores": str(os.cpu_count()), "cpu": model, "python": platform.python_version()}
    for library in libraries:
        try:
            facts[library] = metadata.version(library)
        except metadata.PackageNotFoundError:
            facts[library] = "not installed"
    return facts


def _loops_at_once(processes: int, steps: int) -> list[float]:
    """Seconds each of `processes` children took for the loop, all started at one moment."""
    start = time.time() + 0.3  # after every child has started Python
    children = [
        subprocess.Popen([sys.executable, "-c", _LOOP, repr(start), str(steps)], stdout=subprocess.PIPE, text=True)
        for _ in range(processes)
    ]
    return [float(child.communicate()[0]) for child in children]


def two_core_ceiling(rounds: int = 3, steps: int = 3_000_000) -> float:
    """Two processes' loop work per second over one process's (see above), each side's best of
    `rounds` (a busy moment of the host slows a round; the best is the machine's own speed)."""
    alone = min(_loops_at_once(1, steps)[0] for _ in range(rounds))
    both = min(max(_loops_at_once(2, steps)) for _ in range(rounds))
    return 2 * alone / both

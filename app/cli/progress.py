"""Progress on stderr for the long commands (count and train over a corpus).

`Progress(live=True)` redraws one line at most ten times a second: a bar, bytes done of
the total, bytes per second and the time left while counting; merges done while merging.
It is live when stderr is a terminal, or when forced (`--progress`). Not live, it draws
nothing; with `stage_lines` it writes one line when each stage ends instead (train does:
its log then says how long counting and merging took). Everything goes to stderr, so
stdout stays the report.
"""

from __future__ import annotations

import sys
import time


def human_bytes(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1000
    return f"{size:,.1f} TB"


def human_seconds(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    def __init__(self, live: bool, stage_lines: bool = False, width: int = 28, stream=None):
        self.live = live
        self.stage_lines = stage_lines
        self.width = width
        self.stream = stream or sys.stderr
        self._stage: str | None = None
        self._started = 0.0
        self._drawn = 0.0
        self._last: tuple[int, int] = (0, 0)

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage != self._stage:
            self.finish()
            self._stage, self._started, self._drawn = stage, now, 0.0
        self._last = (done, total)
        if self.live and (done >= total > 0 or now - self._drawn >= 0.1):
            self._drawn = now
            self.stream.write("\r" + self._line(stage, done, total, now - self._started) + "\x1b[K")
            self.stream.flush()
        if total and done >= total and stage == "merging":
            self.finish()

    def finish(self) -> None:
        """End the current stage: a newline after a live bar, or the stage's one line."""
        if self._stage is None:
            return
        done, _total = self._last
        seconds = time.monotonic() - self._started
        if self.live:
            self.stream.write("\n")
        elif self.stage_lines:
            if self._stage == "counting":
                self.stream.write(
                    f"counting: {human_bytes(done)} read in {seconds:.1f} s "
                    f"({human_bytes(done / max(seconds, 1e-9))}/s)\n"
                )
            else:
                self.stream.write(f"merging: {done:,} merges in {seconds:.1f} s\n")
        self.stream.flush()
        self._stage = None

    def _line(self, stage: str, done: int, total: int, seconds: float) -> str:
        filled = self.width * done // total if total else 0
        bar = f"[{'#' * filled}{'.' * (self.width - filled)}]"
        if stage != "counting":
            return f"{stage} {bar} {done:,}/{total:,}"
        rate = done / seconds if seconds > 0 else 0.0
        left = f", {human_seconds((total - done) / rate)} left" if rate and done < total else ""
        return f"counting {bar} {human_bytes(done)}/{human_bytes(total)}, {human_bytes(rate)}/s{left}"

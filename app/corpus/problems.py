"""What could not be read: unreadable files and bad records, counted, with a few examples.

Workers fill one `Problems` per task; the caller adds them up. The examples kept are the
first EXAMPLES in corpus order (source, then position in it), whatever the order the
tasks finished in, so a report does not depend on how the work was split.
"""

from __future__ import annotations

from dataclasses import dataclass, field

EXAMPLES = 20


@dataclass
class Problems:
    bad_files: int = 0
    bad_records: int = 0
    examples: list[tuple[int, int, str]] = field(default_factory=list)  # (source index, position, message)

    def file(self, source_index: int, position: int, message: str) -> None:
        """A file, or the rest of one, could not be read."""
        self.bad_files += 1
        self._example(source_index, position, message)

    def record(self, source_index: int, position: int, message: str) -> None:
        """One document could not be used (bad JSON, bad UTF-8, a missing field, too large...)."""
        self.bad_records += 1
        self._example(source_index, position, message)

    def add(self, other: Problems) -> None:
        self.bad_files += other.bad_files
        self.bad_records += other.bad_records
        self.examples = sorted(self.examples + other.examples)[:EXAMPLES]

    def _example(self, source_index: int, position: int, message: str) -> None:
        if len(self.examples) < EXAMPLES or (source_index, position) < self.examples[-1][:2]:
            self.examples = sorted([*self.examples, (source_index, position, message)])[:EXAMPLES]

    def __bool__(self) -> bool:
        return bool(self.bad_files or self.bad_records)

    @property
    def total(self) -> int:
        return self.bad_files + self.bad_records

    def messages(self) -> list[str]:
        return [message for _, _, message in self.examples]

    def summary(self) -> str:
        """'1 unreadable file, 3 bad records' (the parts that are not zero)."""
        parts = []
        if self.bad_files:
            parts.append(f"{self.bad_files:,} unreadable file{'s' if self.bad_files != 1 else ''}")
        if self.bad_records:
            parts.append(f"{self.bad_records:,} bad record{'s' if self.bad_records != 1 else ''}")
        return ", ".join(parts) or "none"

    def to_dict(self) -> dict:
        return {
            "bad_files": self.bad_files,
            "bad_records": self.bad_records,
            "examples": self.messages(),
            "more": max(self.total - len(self.examples), 0),
        }

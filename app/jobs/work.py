"""The training work of a job: the one code path of the web's child processes and the CLI.

`train_and_save` holds the name's lock (`user_models.name_lock`) from before training
until the model file is in place, refuses a taken name (a trained or an added tokenizer) unless the spec says replace, and
writes `<folder>/NAME.bpe` atomically (`files.write_atomically`: temp file, fsync,
rename; without replace, a file that appears meanwhile is never overwritten). A process
killed at any point leaves either no file or the whole file; a temp file it leaves is
removed by `remove_temps` under the same lock.

`phase` is told "counting" before the corpus is split, then `progress(done, total)` (and
`on_merge(i, pair, count)`) after each merge; `saving(summary)` is told what the job will report (with the `sha256` of the
model file) just before the file is written, and may raise to stop it. `saved` tells
whether the file on disk is that model, so a process killed between the write and its
report can be told done (runner.py). Left out: any HTTP, queueing or job state (runner.py).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path

from app.bpe.model import PATTERNS, BPETokenizer
from app.bpe.train import OnMerge
from app.errors import NameTaken, TokenprismError
from app.jobs.spec import TrainSpec
from app.tokenizers.storage.files import write_atomically
from app.tokenizers.user.user_models import UPLOAD_SUFFIX, USER_MODEL_SUFFIX, name_lock, remove_stale_temps

Progress = Callable[[int, int], None]


def model_path(folder: Path, name: str) -> Path:
    return folder / f"{name}{USER_MODEL_SUFFIX}"


def name_taken(folder: Path, name: str) -> bool:
    """Whether a trained (NAME.bpe) or added (NAME.tokenizer) tokenizer has this name."""
    return model_path(folder, name).exists() or (folder / f"{name}{UPLOAD_SUFFIX}").exists()


def taken_message(name: str) -> str:
    return (
        f"a tokenizer named {name} exists; choose another name, or replace it "
        "(replace=true in the API and on the page, --force in the CLI)"
    )


def train_and_save(
    spec: TrainSpec,
    documents: list[str] | Callable,
    folder: Path,
    progress: Progress | None = None,
    phase: Callable[[str], None] | None = None,
    saving: Callable[[dict], None] | None = None,
    on_merge: OnMerge | None = None,
) -> dict:
    """Train `spec` on `documents` and save it; the summary the job reports when done.

    `documents` may instead be a function of the split regex that returns what
    `BPETokenizer.train` takes (a CLI that counts chunks on its own workers returns their
    counts); it is called once the name is locked, and the corpus facts are then unknown."""
    path = model_path(folder, spec.name)
    started = time.perf_counter()
    facts: dict[str, int | None] = {"characters": None, "bytes": None, "documents": None}
    if not callable(documents):
        facts = {
            "characters": sum(map(len, documents)),
            "documents": len(documents),
            "bytes": sum(len(d.encode("utf-8", errors="surrogatepass")) for d in documents),
        }
    remove_stale_temps(folder)  # what writers killed long ago left, of names no one holds
    with name_lock(folder, spec.name):
        if not spec.replace and name_taken(folder, spec.name):
            raise NameTaken(taken_message(spec.name))
        if phase:
            phase("counting")
        texts = documents(PATTERNS[spec.pattern]) if callable(documents) else documents
        tokenizer = BPETokenizer.train(
            texts,
            spec.vocab_size,
            pattern=spec.pattern,
            special_tokens=spec.special_tokens,
            name=spec.name,
            description=spec.description or None,
            progress=progress,
            on_merge=on_merge,
        )
        data = tokenizer.dumps()
        summary = {
            "tokenizer": spec.name,
            "vocab_size": tokenizer.vocab_size,
            "merges": len(tokenizer.merges),
            "merges_wanted": spec.merges_wanted,
            "pattern": spec.pattern,
            "special_tokens": dict(tokenizer.special_tokens),
            "description": tokenizer.description,
            **facts,
            "seconds": round(time.perf_counter() - started, 3),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        if saving:
            saving(summary)
        try:
            write_atomically(path, data, overwrite=spec.replace)
        except FileExistsError:
            raise NameTaken(
                f"a tokenizer named {spec.name} appeared while this one trained; "
                "train again with another name, or replace it"
            ) from None
        if spec.replace:
            hide_no_more(folder, spec.name)
    return summary


def hide_no_more(folder: Path, name: str) -> None:
    """Remove an added file named `name`, which would hide a replacing model (as uploads.store does)."""
    (folder / f"{name}{UPLOAD_SUFFIX}").unlink(missing_ok=True)


def saved(folder: Path, name: str, summary: dict | None) -> bool:
    """Whether `<folder>/NAME.bpe` is the model whose summary (with its sha256) a job recorded
    before writing it: the job's output is on disk, whole."""
    if not summary or not summary.get("sha256"):
        return False
    try:
        data = model_path(folder, name).read_bytes()
    except OSError:
        return False
    return hashlib.sha256(data).hexdigest() == summary["sha256"]


def remove_temps(folder: Path, name: str) -> int:
    """Remove the temp files a killed writer of `name` left (`.NAME.bpe.*.tmp`), unless a
    live process holds the name's lock; how many were removed."""
    removed = 0
    try:
        with name_lock(folder, name):
            for temp in folder.glob(f".{name}{USER_MODEL_SUFFIX}.*.tmp"):
                temp.unlink(missing_ok=True)
                removed += 1
    except TokenprismError:  # name_busy: its writer is alive; or an unwritable folder: a later start tries again
        pass
    return removed

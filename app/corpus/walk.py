"""Walking a corpus directory: its files in corpus order (files by name, then folders by
name), hidden names and symlinked folders skipped, --include and --exclude globs applied (a
glob without '/' against the name, one with '/' against the path below the directory; an
--exclude glob also prunes folders). A folder that cannot be listed, or a file that is not
a regular one, is a problem of the plan, not an error. Left out: opening the files
(app/corpus/sources.py decides formats and order across the paths given).
"""

from __future__ import annotations

import fnmatch
import os
import stat

from app.corpus.parts import CorpusOptions, first_line
from app.corpus.problems import Problems


def walk(top: str, options: CorpusOptions, problems: Problems, order: int) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def failed(error: OSError) -> None:
        problems.file(order + len(found), 0, f"{error.filename}: cannot list it ({reason(error)}); skipped")

    for root, folders, files in os.walk(top, onerror=failed):
        below = os.path.relpath(root, top)
        folders[:] = sorted(
            f for f in folders if not f.startswith(".") and not _matches(options.exclude, _joined(below, f), f)
        )
        for name in sorted(files):
            relative = _joined(below, name)
            if name.startswith(".") or _matches(options.exclude, relative, name):
                continue
            if options.include and not _matches(options.include, relative, name):
                continue
            path = os.path.join(root, name)
            try:
                regular = stat.S_ISREG(os.stat(path).st_mode)
            except OSError:
                regular = True  # a broken link: reported when it is opened
            if not regular:
                problems.file(order + len(found), 0, f"{os.path.join(top, relative)}: not a regular file; skipped")
                continue
            found.append((path, os.path.join(top, relative)))
    return found


def _joined(below: str, name: str) -> str:
    return name if below == "." else f"{below}/{name}".replace(os.sep, "/")


def _matches(globs: tuple[str, ...], relative: str, name: str) -> bool:
    return any(fnmatch.fnmatchcase(relative if "/" in glob else name, glob) for glob in globs)


def reason(error: OSError) -> str:
    return (error.strerror or first_line(error)).lower()

"""Fault hooks for servers under test: Python runs `sitecustomize` at start-up when this folder is
on PYTHONPATH, so a server started with it (each worker, and each training child) loads this file.

- TOKENPRISM_TEST_PAUSE_AFTER_SAVE=path: a training job that has just put its model in place
  (`write_atomically` returned: fsync and rename done) writes that path and then sleeps, so a
  test can kill the server at exactly that moment.
- TOKENPRISM_TEST_SLOW_CREATE_S=seconds: recording a job (`JobStore.create`) first waits that
  long, which widens any gap between checking a name and recording it to where a test sees it.
- TOKENPRISM_TEST_FACTS=path: the model facts table is read from that TSV instead of the shipped one.

Without the variables it does nothing. Never used by the app itself (tests/api/test_job_truth_api.py).
"""

import os
import time
from pathlib import Path

_MARKER = os.environ.get("TOKENPRISM_TEST_PAUSE_AFTER_SAVE")

if _MARKER:
    from app.jobs import work

    _write = work.write_atomically

    def _write_then_pause(path, data, **options):
        _write(path, data, **options)
        Path(_MARKER).write_text(str(path), encoding="utf-8")
        time.sleep(600)  # the test kills the server meanwhile; the child dies with it

    work.write_atomically = _write_then_pause

_SLOW_CREATE_S = float(os.environ.get("TOKENPRISM_TEST_SLOW_CREATE_S") or 0)

if _SLOW_CREATE_S:
    from app.jobs.store import JobStore

    _create = JobStore.create

    def _slow_create(self, *args, **options):
        time.sleep(_SLOW_CREATE_S)
        return _create(self, *args, **options)

    JobStore.create = _slow_create

_FACTS = os.environ.get("TOKENPRISM_TEST_FACTS")

if _FACTS:  # the model facts a test set (tests/pricing/facts_rows.py) instead of the shipped table
    import sys

    # `app` of this checkout, not the one an editable install points at (this runs before the cwd joins sys.path)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from app.pricing import facts

    facts.SHIPPED = Path(_FACTS)  # read by install_facts, at start

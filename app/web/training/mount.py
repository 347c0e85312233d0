"""Wiring the BPE lab into an app (`install`): the training API's and the /train pages' routes,
and the job runner started with the app and closed at its shutdown. Above both jobs.py and
page.py, which it mounts. Left out: the routes themselves.
"""

from __future__ import annotations

import contextlib

from fastapi import FastAPI

from app.errors import TokenprismError
from app.web.training import jobs, page


def install(app: FastAPI) -> None:
    """Add the training API and pages to `app`, and run its job runner from start to shutdown."""
    app.router.routes.extend([*jobs.router.routes, *page.router.routes])

    def start() -> None:
        with contextlib.suppress(TokenprismError):  # logged; every other page works
            jobs.runner_of(app)  # interrupts the jobs a dead server left, before any request reads them

    def stop() -> None:
        runner = getattr(app.state, "job_runner", None)
        if runner is not None:
            runner.close()
            app.state.job_runner = None

    app.router.on_startup.append(start)
    app.router.on_shutdown.append(stop)

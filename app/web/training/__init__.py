"""The BPE lab on the web: mount.py (its routes and the runner's start and stop), jobs.py (/api/train), page.py
(/train and a job's page), replay.py (/train/replay), forms.py (reading a corpus from a form
or JSON), schemas.py (the JSON models). The job runner itself is app/jobs."""

from app.web.training.jobs import large_bodies
from app.web.training.mount import install

__all__ = ["install", "large_bodies"]

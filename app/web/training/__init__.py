"""The BPE lab on the web: jobs.py (/api/train, the runner's start and stop), page.py
(/train and a job's page), replay.py (/train/replay), forms.py (reading a corpus from a form
or JSON), schemas.py (the JSON models). The job runner itself is app/jobs."""

from app.web.training.jobs import install, large_bodies

__all__ = ["install", "large_bodies"]

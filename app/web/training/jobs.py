"""Training jobs and merge replay over HTTP: the /api/train routes, the merges listing, and
the job runner of an app (`runner_of`); mount.py wires them and the /train pages into the app.

POST /api/train (JSON `{"name", "text" | "texts", "vocab_size", "pattern",
"special_tokens", "replace", "description"}`, or multipart with corpus files) checks the
request (`app.jobs.spec`), queues the job and answers 202 `{"job", "status_url", ...}`;
GET /api/train/{job} is its state; DELETE /api/train/{job} cancels it. Write access is
the uploads' rule (`write_access.check_write_access`). The runner is one per app,
made at start-up (it marks the jobs of a dead server `interrupted`) and closed at
shutdown (its children are killed, its jobs interrupted). A full queue is a 503
`server_busy` with Retry-After. GET /api/tokenizers/{name}/merges lists a `bpe`
tokenizer's merges in order; POST /api/tokenize with "merges" is in api/tokens.py.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import Response

from app.bpe import replay
from app.errors import InvalidInput, TokenprismError, excerpt
from app.jobs import JobRunner, TrainSpec
from app.jobs.spec import check_limits, check_spec, corpus_limit, preview
from app.web.deps import services
from app.web.edge.bodies import json_body_doc, read_json
from app.web.edge.json_body import dumps
from app.web.edge.security import LargeBody
from app.web.schemas import ErrorResponse
from app.web.training import forms as train_forms
from app.web.training.schemas import (
    MAX_MERGES_LISTED,
    MergesResponse,
    TrainAccepted,
    TrainJob,
    TrainPreviewRequest,
    TrainPreviewResponse,
    TrainRequest,
)
from app.web.write_access import check_write_access

log = logging.getLogger("tokenprism")
router = APIRouter(prefix="/api", tags=["training"])
LARGE_BODY_PATHS = ("/api/train", "/train", "/train/preview")
_runner_lock = threading.Lock()
_STATUSES = {
    400: "The body is not valid JSON, or the Host is not one this server answers (TOKENPRISM_ALLOWED_HOSTS).",
    401: "TOKENPRISM_ADMIN_TOKEN is set and the request has no or a wrong 'Authorization: Bearer' token.",
    403: "A browser request from another site (Origin: null, a foreign Origin, Sec-Fetch-Site: cross-site).",
    404: "No such job, or no such tokenizer.",
    409: "The name is taken (send replace=true), a job is training that name, or the job has ended.",
    413: "The corpus is over TOKENPRISM_MAX_TRAIN_BYTES.",
    415: "The body is neither JSON nor multipart/form-data.",
    422: "A field is missing or invalid (the message names it), or the tokenizer is not a bpe tokenizer.",
    503: "The training queue is full; retry after Retry-After seconds.",
}


def _responses(*statuses: int) -> dict:
    return {status: {"model": ErrorResponse, "description": _STATUSES[status]} for status in statuses}


def large_bodies(settings) -> list[LargeBody]:
    """The body bound of the routes that take a corpus (BodyLimit in main.py)."""
    limit, setting = corpus_limit(settings)
    message = f"the training corpus is over {limit:,} bytes ({setting}); send less text, or train with the CLI"
    return [LargeBody(path, limit, "corpus_too_large", message) for path in LARGE_BODY_PATHS]


def runner_of(app: FastAPI) -> JobRunner:
    """The app's job runner, made on first use (start-up makes it, see `install`). A data
    directory that cannot hold it (read-only, full) makes training unavailable (503), not the app."""
    runner = getattr(app.state, "job_runner", None)
    if runner is None:
        with _runner_lock:
            runner = getattr(app.state, "job_runner", None)
            if runner is None:
                settings = app.state.services.settings
                try:
                    runner = app.state.job_runner = JobRunner.for_settings(settings)
                except (OSError, sqlite3.Error) as error:
                    log.warning("training is unavailable: %s", error)
                    raise TokenprismError(
                        f"training is unavailable: the data directory {settings.data_dir} cannot "
                        f"hold its jobs ({error}); fix it, or set TOKENPRISM_DATA_DIR",
                        code="training_unavailable",
                        status=503,
                    ) from None
    return runner


async def submit(request: Request, spec: TrainSpec, documents: list[str]) -> str:
    """Check a job against the rules and this server's limits, and queue it; its id."""
    settings, registry, _ = services(request)
    runner = runner_of(request.app)

    def checked_submit() -> str:
        check_spec(spec, registry, settings.max_train_vocab)
        return runner.submit(spec, check_limits(spec, documents, settings))

    return await asyncio.get_running_loop().run_in_executor(None, checked_submit)


_MULTIPART_FORM = {
    "type": "object",
    "required": ["name", "vocab_size"],
    "properties": {
        "files": {"type": "array", "items": {"type": "string", "format": "binary"}, "description": "UTF-8 text files"},
        "text": {"type": "string"},
        "name": {"type": "string"},
        "vocab_size": {"type": "integer"},
        "pattern": {"type": "string", "enum": ["gpt4", "gpt2", "none"]},
        "special_tokens": {"type": "string", "description": "a JSON array, or one per line"},
        "replace": {"type": "boolean"},
        "description": {"type": "string"},
    },
}
_TRAIN_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            **json_body_doc(TrainRequest)["requestBody"]["content"],
            "multipart/form-data": {"schema": _MULTIPART_FORM},
        },
    }
}


@router.post(
    "/train",
    status_code=202,
    summary="Start training a BPE tokenizer",
    openapi_extra=_TRAIN_BODY,
    responses={
        202: {"model": TrainAccepted, "description": "Queued; follow status_url."},
        **_responses(400, 401, 403, 409, 413, 415, 422, 503),
    },
)
async def start_training(request: Request):
    """Answers 202 at once; the job runs in a child process, at most TOKENPRISM_TRAIN_JOBS at a time, with at most
    TOKENPRISM_TRAIN_QUEUE waiting (more: 503). The merges equal the lecture's naive algorithm (most frequent pair,
    ties to the pair that occurs first). The model is saved as `<data dir>/tokenizers/NAME.bpe` when done."""
    check_write_access(request)
    if train_forms.is_multipart(request):
        fields, documents = await train_forms.read_form(request, services(request).settings)
        spec = train_forms.spec_from_fields(fields)
    else:
        spec, documents = await train_forms.read_json_request(request)
    job = await submit(request, spec, documents)
    body = {"job": job, "status": "queued", "status_url": f"/api/train/{job}", "page_url": f"/train/jobs/{job}"}
    return Response(
        dumps(body), status_code=202, media_type="application/json", headers={"Location": body["status_url"]}
    )


@router.get(
    "/train/{job}",
    response_model=TrainJob,
    response_model_exclude_none=True,
    summary="A training job's state",
    responses=_responses(404, 422),
)
async def job_status(request: Request, job: str):
    """`merges_done` of `merges_total` while running; when done, `tokenizer` and `summary`; when failed,
    cancelled or interrupted (the server stopped), `error`."""
    return runner_of(request.app).status(job)


@router.delete(
    "/train/{job}",
    response_model=TrainJob,
    response_model_exclude_none=True,
    summary="Cancel a training job",
    responses=_responses(400, 401, 403, 404, 409, 422),
)
async def cancel_job(request: Request, job: str):
    """Kills its process; nothing is saved. A job that has ended, or is writing its model, is a 409."""
    check_write_access(request)
    runner = runner_of(request.app)
    return await asyncio.get_running_loop().run_in_executor(None, runner.cancel, job)


@router.post(
    "/train/preview",
    response_model=TrainPreviewResponse,
    summary="What a corpus gives the merge loop",
    responses=_responses(400, 413, 415, 422),
    openapi_extra=json_body_doc(TrainPreviewRequest),
)
async def train_preview(request: Request):
    """Chunks and distinct chunks of the corpus under the pattern, and how many merges it can give at most.
    Counts at most `max_text_chars` characters (GET /api/limits); nothing is stored."""
    settings, _, pool = services(request)
    body = await read_json(request, TrainPreviewRequest)
    documents = ([body.text] if body.text else []) + list(body.texts or [])
    spec = TrainSpec("preview", body.vocab_size, body.pattern, tuple(body.special_tokens))
    if spec.pattern not in ("gpt2", "gpt4", "none"):
        raise InvalidInput(f"pattern {excerpt(spec.pattern)} is unknown; use one of: gpt4, gpt2, none")
    if sum(map(len, documents)) > settings.max_text_chars:
        raise InvalidInput(f"the preview counts at most {settings.max_text_chars:,} characters; send a sample")
    result = await pool.run(preview, documents, spec.pattern, spec.merges_wanted, request=request)
    return result.to_dict()


@router.get(
    "/tokenizers/{name}/merges",
    response_model=MergesResponse,
    summary="A BPE tokenizer's merges, in order",
    responses=_responses(404, 422),
)
async def list_merges(
    request: Request, name: str, offset: int = Query(0, ge=0), limit: int = Query(100, ge=1, le=MAX_MERGES_LISTED)
):
    """For `bpe` tokenizers (trained, added or tokenprism_4k): merge i joins `left` and `right` into id 256 + i.
    Another kind is a 422 naming it. `count` is how often the pair occurred in the training corpus when it was
    chosen (null when not recorded: models not trained here, or saved by a tokenprism before counts)."""
    _, registry, pool = services(request)
    model = await pool.run(replay.bpe_model, registry, name, request=request)
    rows = replay.merge_rows(model, offset, limit)
    return {
        "tokenizer": model.name,
        "merges_total": len(replay.pairs_of(model)),
        "offset": offset,
        "limit": limit,
        "merges": rows,
    }

"""The BPE lab's pages: `/train` (the form), `/train/jobs/{job}` (progress, then the new
tokenizer) and `/train/replay` (replay.py).

The form posts multipart (pasted text and dropped files: a plain `<input type=file
multiple>`), is checked like POST /api/train and redirects to the job's page. That page
polls its progress every 500 ms with htmx while the job is queued or running (once the job
has ended the answer is the whole job section, which has no polling, so polling stops); without JavaScript a `<noscript>` meta
refresh reloads it. Cancel is a form post. A live preview (htmx, on typing) shows the
chunks and the merges the text can give, counted on the work pool. Left out: a list of
recent jobs (a job is found by its page's address).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from app.errors import InvalidInput, TokenprismError, excerpt
from app.jobs.spec import TRAIN_PATTERNS, corpus_limit, preview
from app.web.deps import services
from app.web.edge.json_body import finished_response
from app.web.pages.common import base_context, is_htmx, listed_entries
from app.web.training import forms as train_forms
from app.web.training import jobs as training
from app.web.training.merge_counts import bar_width
from app.web.training.replay import ReplayState, render_replay
from app.web.write_access import check_same_site, check_write_access

router = APIRouter(include_in_schema=False)
DEFAULT_VOCAB = 1_000
COMPARE_WITH = ("o200k_base", "cl100k_base", "tokenprism_4k")
PHASES = {
    "starting": "Starting the trainer",
    "counting": "Splitting the corpus into chunks and counting them",
    "merging": "Merging",
    "saving": "Saving the model",
    "": "Running",
}


def _html(request: Request, template: str, context: dict, status: int = 200, headers: Mapping[str, str] | None = None):
    html = request.app.state.templates.get_template(template).render(context)
    return finished_response(
        html.encode("utf-8"),
        "text/html; charset=utf-8",
        request.headers.get("accept-encoding", ""),
        status,
        {"Vary": "HX-Request", "Cache-Control": "no-store", **(headers or {})},
    )


def _form_context(request: Request, fields: dict | None = None, error: TokenprismError | None = None) -> dict:
    settings, registry, _ = services(request)
    return {
        **base_context(request, settings, "train"),
        "section": "form",
        "fields": fields or {},
        "error": error,
        "patterns": TRAIN_PATTERNS,
        "default_vocab": DEFAULT_VOCAB,
        "max_corpus": corpus_limit(settings)[0],
        "needs_token": bool(settings.admin_token),
        "bpe_names": [e.name for e in listed_entries(registry) if e.kind == "bpe"],
    }


@router.get("/train")
async def train_form(request: Request):
    return _html(request, "train/train.html", _form_context(request))


@router.post("/train")
async def train_submit(request: Request):
    fields: dict = {}
    try:
        check_same_site(request)  # before the corpus is read
        fields, documents = await train_forms.read_form(request, services(request).settings)
        check_write_access(request, fields.get("token"))
        job = await training.submit(request, train_forms.spec_from_fields(fields), documents)
    except TokenprismError as error:
        fields.pop("token", None)
        return _html(request, "train/train.html", _form_context(request, fields, error), error.status, error.headers)
    return RedirectResponse(f"/train/jobs/{job}", status_code=303)


@router.post("/train/preview")
async def train_preview(request: Request):
    """The preview fragment for the form's text and attached files, vocab size, pattern and special
    tokens: the documents training would get, counted on their first `max_text_chars` characters."""
    settings, _, pool = services(request)
    result = error = None
    files = 0
    try:
        fields, documents = await train_forms.read_form(request, settings)
        files = len(documents) - bool(fields.get("text"))
        size = fields.get("vocab_size", "").strip()
        specials = train_forms.special_tokens(fields.get("special_tokens", ""))
        pattern = fields.get("pattern") or "gpt4"
        if pattern not in TRAIN_PATTERNS:
            raise InvalidInput(f"pattern {excerpt(pattern)} is unknown; use one of: {', '.join(TRAIN_PATTERNS)}")
        wanted = int(size) - 256 - len(specials) if size.isascii() and size.isdigit() and len(size) < 10 else 0
        sample, room = [], settings.max_text_chars
        for document in documents:
            if room > 0 and document:
                sample.append(document[:room])
                room -= len(sample[-1])
        result = await pool.run(preview, sample, pattern, wanted, request=request)
        cut = sum(map(len, sample)) < sum(map(len, documents))
    except TokenprismError as caught:
        error, cut = caught, False
    except Exception as caught:  # a malformed form (python-multipart's errors)
        error, cut = InvalidInput(f"the form could not be read ({caught})"), False
    context = {
        "preview": result,
        "error": error,
        "cut": cut,
        "max_chars": settings.max_text_chars,
        "max_vocab": settings.max_train_vocab,
        "files": files,
    }
    return _html(request, "train/_preview.html", context)


def _job_context(request: Request, job: dict, error: TokenprismError | None = None) -> dict:
    settings, _, _ = services(request)
    active = job["status"] in ("queued", "running")
    done, total = job["merges_done"], job["merges_total"]
    percent = 100 if job["status"] == "done" else (100 * done // total if total else 0)
    name = job["name"]
    compare = [name, *(other for other in COMPARE_WITH if other != name)]
    first = job.get("first_merges") or []
    return {
        "first_merges": [{**row, "bar": bar_width(row["count"], first[0]["count"])} for row in first],
        **base_context(request, settings, "train"),
        "section": "job",
        "job": job,
        "active": active,
        "percent": percent,
        "phase": PHASES.get(job.get("phase") or "", "Running"),
        "error": error,
        "needs_token": bool(settings.admin_token),
        "refresh": active,
        "links": {
            "playground": "/?" + urlencode({"tokenizer": name}, quote_via=quote),
            "compare": "/compare?" + urlencode([("tokenizers", n) for n in compare], quote_via=quote),
            "replay": "/train/replay?" + urlencode({"tokenizer": name, "k": 0}, quote_via=quote),
        },
    }


@router.get("/train/jobs/{job}")
async def job_page(request: Request, job: str):
    state = training.runner_of(request.app).status(job)
    context = _job_context(request, state)
    return _html(request, "train/_job.html" if is_htmx(request) else "train/train.html", context)


@router.get("/train/jobs/{job}/progress")
async def job_progress(request: Request, job: str):
    """What the progress bar's poll gets: itself while the job runs; the whole job section once
    it has ended (retargeted, so the summary appears and polling stops)."""
    context = _job_context(request, training.runner_of(request.app).status(job))
    if context["active"]:
        return _html(request, "train/_progress.html", {**context, "poll": True})
    return _html(request, "train/_job.html", context, headers={"HX-Retarget": "#job", "HX-Reswap": "outerHTML"})


@router.post("/train/jobs/{job}/cancel")
async def job_cancel(request: Request, job: str):
    runner = training.runner_of(request.app)
    error = None
    try:
        form = await request.form(max_files=0, max_fields=2, max_part_size=4096)
        token = form.get("token")
        check_write_access(request, token if isinstance(token, str) else None)
        await asyncio.get_running_loop().run_in_executor(None, runner.cancel, job)
    except TokenprismError as caught:
        error = caught
    if error is None and not is_htmx(request):
        return RedirectResponse(f"/train/jobs/{job}", status_code=303)
    context = _job_context(request, runner.status(job), error)
    return _html(
        request,
        "train/_job.html" if is_htmx(request) else "train/train.html",
        context,
        error.status if error and not is_htmx(request) else 200,
    )


@router.get("/train/replay")
async def replay_page(request: Request):
    settings, registry, pool = services(request)
    state = ReplayState.from_params(request.query_params)
    return await pool.run(render_replay, request, settings, registry, state, request=request)

"""Adding and removing tokenizers from the web: the API and the /tokenizers page.

POST /api/tokenizers (multipart: `file`, `name`, optional `kind`, `pattern`,
`special_tokens` as JSON, `description`, `replace`, `chat_template`) checks the file in a
limited child process (app/tokenizers/user/uploads.py) and stores it: 201 with the tokenizer's
facts. `chat_template` (a file or a text field: a tokenizer_config.json or a .jinja
template, app/chat/formats/template_files.py) gives the tokenizer the `template` chat format.
DELETE /api/tokenizers/{name}: 204 for an added or trained tokenizer, 403 for a built-in.
The page lists every tokenizer with an upload form and delete buttons; its forms post to
/tokenizers and /tokenizers/{name}/delete, so it works without JavaScript.

The file check waits for a child process, not for the CPU: it runs on the loop's default
executor, not the work pool, bounded by uploads.MAX_CONCURRENT_CHECKS. Who may write:
app/web/write_access.py (the admin token, same-site requests only).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException

from app.chat.formats import template_files
from app.errors import InvalidInput, TokenprismError, excerpt
from app.tokenizers.user import uploads
from app.web import schemas
from app.web.deps import services
from app.web.edge.json_body import dumps
from app.web.write_access import Forbidden, check_same_site, check_write_access

router = APIRouter()
FORM_FIELDS = ("file", "name", "kind", "pattern", "special_tokens", "description", "replace", "token", "chat_template")
TEXT_FIELDS = FORM_FIELDS[1:-1]
_STATUSES = {
    400: "The Host is not one this server answers (TOKENPRISM_ALLOWED_HOSTS), or the multipart body cannot be parsed.",
    401: "TOKENPRISM_ADMIN_TOKEN is set and the request has no or a wrong 'Authorization: Bearer' token.",
    403: "A built-in tokenizer, or a browser request from another site (Origin: null, a foreign Origin, "
    "Sec-Fetch-Site: cross-site).",
    404: "No added or trained tokenizer of that name.",
    409: "The name is taken: a built-in, an alias or a model name (choose another), or another tokenizer "
    "(send replace=true).",
    413: "The file is over TOKENPRISM_MAX_UPLOAD_BYTES.",
    415: "The body is not multipart/form-data.",
    422: "A field is missing or invalid, or the file is refused (its message says why).",
    503: "Two files are being checked already; retry after Retry-After seconds.",
}
_UPLOAD_FORM = {
    "type": "object",
    "required": ["file", "name"],
    "properties": {
        "file": {
            "type": "string",
            "format": "binary",
            "description": "tokenizer.json, .tiktoken, SentencePiece .model or .bpe",
        },
        "name": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_.-]{0,47}$"},
        "kind": {"type": "string", "enum": list(uploads.KINDS), "description": "default: detected from the file"},
        "pattern": {"type": "string", "description": ".tiktoken only: gpt2, gpt4, o200k or a regex"},
        "special_tokens": {"type": "string", "description": '.tiktoken only, JSON: {"<|endoftext|>": 100257}'},
        "description": {"type": "string"},
        "replace": {"type": "boolean", "description": "replace a tokenizer of that name"},
        "chat_template": {
            "type": "string",
            "format": "binary",
            "description": "optional: the model's "
            "tokenizer_config.json (its chat_template, bos_token, eos_token) or a .jinja template; "
            "gives the tokenizer the 'template' chat format",
        },
    },
}


def _responses(*statuses: int) -> dict:
    return {status: {"model": schemas.ErrorResponse, "description": _STATUSES[status]} for status in statuses}


@dataclass(frozen=True)
class Upload:
    fields: dict[str, str]
    file: UploadFile
    chat_template: UploadFile | str | None  # a file part or a text field; None when not sent or empty


async def read_upload(request: Request) -> Upload:
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise TokenprismError(
            "send the file as multipart/form-data with a 'file' field (curl -F file=@PATH -F name=NAME)",
            code="unsupported_media_type",
            status=415,
        )
    try:
        form = await request.form(max_files=2, max_fields=len(FORM_FIELDS), max_part_size=1 << 20)
    except MultiPartException as error:
        raise InvalidInput(
            f"the form could not be read ({error.message}); send one file and the named fields"
        ) from None
    unknown = sorted(set(form.keys()) - set(FORM_FIELDS))
    if unknown:
        raise InvalidInput(f"unknown form field {excerpt(unknown[0])}; the fields are {', '.join(FORM_FIELDS)}")
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise InvalidInput("the form has no file: send the tokenizer file in a 'file' field")
    fields = {}
    for key in TEXT_FIELDS:
        value = form.get(key)
        if isinstance(value, UploadFile):
            raise InvalidInput(f"form field {excerpt(key)} must be text, not a file")
        if value not in (None, ""):
            fields[key] = value
    template = form.get("chat_template")
    if isinstance(template, UploadFile) and not template.filename and not template.size:
        template = None  # a page's file input left empty
    return Upload(fields, upload, template or None)


async def _read_template(upload: UploadFile | str | None) -> dict | None:
    """The chat template sent with a tokenizer, checked, as stored in its facts; None when none was sent."""
    if upload is None:
        return None
    if isinstance(upload, str):
        data, file_name = upload.encode("utf-8"), ""
    else:
        data, file_name = await upload.read(template_files.MAX_FILE_BYTES + 1), upload.filename or ""
    template = await asyncio.get_running_loop().run_in_executor(None, template_files.read, data, file_name)
    return template_files.to_facts(template, file_name)


async def add_tokenizer(request: Request, sent: Upload) -> uploads.Facts:
    settings, registry, _ = services(request)
    fields, upload = sent.fields, sent.file
    name = fields.get("name")
    if not name:
        raise InvalidInput("the form has no name: send the name to use the tokenizer by in a 'name' field")
    registry.check_new_name(name)
    data = await upload.read(settings.max_upload_bytes + 1)
    if len(data) > settings.max_upload_bytes:
        raise TokenprismError(
            f"the tokenizer file is over {settings.max_upload_bytes:,} bytes "
            "(TOKENPRISM_MAX_UPLOAD_BYTES); send a smaller file",
            code="file_too_large",
            status=413,
        )
    if not data:
        raise InvalidInput("the file is empty; send a tokenizer file")
    special = None
    if "special_tokens" in fields:
        try:
            special = json.loads(fields["special_tokens"])
        except ValueError:
            raise InvalidInput('special_tokens must be JSON such as {"<|endoftext|>": 100257}') from None
    replace = fields.get("replace", "").lower() in ("1", "true", "yes", "on")
    template = await _read_template(sent.chat_template)
    facts, data = await asyncio.get_running_loop().run_in_executor(
        None,
        lambda: uploads.check(
            data,
            name,
            fields.get("description", ""),
            kind=fields.get("kind"),
            pattern=fields.get("pattern"),
            special_tokens=special,
            source_name=upload.filename or "",
            max_vocab=settings.max_upload_vocab,
            chat_template=template,
        ),
    )
    uploads.store(settings.user_tokenizer_dir, name, facts, data, replace=replace)
    return facts


def remove_tokenizer(request: Request, name: str) -> None:
    settings, registry, _ = services(request)
    if registry.is_builtin(name):
        raise Forbidden(f"{name} is a built-in tokenizer; only added and trained tokenizers can be removed")
    if not uploads.remove(settings.user_tokenizer_dir, name):
        raise TokenprismError(
            f"there is no added or trained tokenizer named {name}; GET /api/tokenizers lists them",
            code="unknown_tokenizer",
            status=404,
        )


def facts_json(name: str, facts: uploads.Facts) -> dict:
    return {
        "name": name,
        "kind": facts.kind,
        "vocab_size": facts.vocab_size,
        "description": facts.description,
        "sha256": facts.sha256,
        "size": facts.size,
        "source_name": facts.source_name,
        "added": facts.added,
        "chat_formats": ["template"] if facts.chat_template is not None else [],
    }


@router.post(
    "/api/tokenizers",
    tags=["tokenizers"],
    status_code=201,
    summary="Add a tokenizer file",
    responses={
        201: {"description": "Stored; its facts (name, kind, vocab_size, sha256, size, ...)."},
        **_responses(400, 401, 403, 409, 413, 415, 422, 503),
    },
    openapi_extra={"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": _UPLOAD_FORM}}}},
)
async def api_add(request: Request):
    check_write_access(request)
    sent = await read_upload(request)
    facts = await add_tokenizer(request, sent)
    return Response(
        dumps(facts_json(sent.fields["name"], facts)).encode(), status_code=201, media_type="application/json"
    )


@router.delete(
    "/api/tokenizers/{name}",
    tags=["tokenizers"],
    status_code=204,
    summary="Remove an added tokenizer",
    responses=_responses(400, 401, 403, 404, 422),
)
async def api_remove(request: Request, name: str):
    check_write_access(request)
    remove_tokenizer(request, name)
    return Response(status_code=204)


@router.get("/tokenizers", include_in_schema=False)
async def page(request: Request, added: str | None = None, removed: str | None = None):
    return render_page(request, notice=f"Added {added}." if added else f"Removed {removed}." if removed else None)


@router.post("/tokenizers", include_in_schema=False)
async def page_add(request: Request):
    try:
        check_same_site(request)  # before the body is read
        sent = await read_upload(request)
        check_write_access(request, sent.fields.get("token"))
        await add_tokenizer(request, sent)
    except TokenprismError as error:
        return render_page(request, error=error.message, status=error.status)
    return RedirectResponse(f"/tokenizers?added={sent.fields['name']}", status_code=303)


@router.post("/tokenizers/{name}/delete", include_in_schema=False)
async def page_remove(request: Request, name: str):
    form = await request.form(max_files=0, max_fields=2, max_part_size=4096)
    try:
        token = form.get("token")
        check_write_access(request, token if isinstance(token, str) else None)
        remove_tokenizer(request, name)
    except TokenprismError as error:
        return render_page(request, error=error.message, status=error.status)
    return RedirectResponse(f"/tokenizers?removed={name}", status_code=303)


def render_page(request: Request, notice: str | None = None, error: str | None = None, status: int = 200):
    settings, registry, _ = services(request)
    rows = []
    user_models = registry.user_models()
    for info in registry.infos():
        model = user_models.get(info["name"])
        facts = getattr(model, "facts", None)
        origin = "built-in" if registry.is_builtin(info["name"]) else "added" if facts else "trained here"
        rows.append(
            {
                **info,
                "origin": origin,
                "facts": facts,
                "removable": origin != "built-in",
                "chat_formats": registry.chat_formats(info["name"]),
            }
        )
    context = {
        "page": "tokenizers",
        "rows": rows,
        "notice": notice,
        "error": error,
        "needs_token": bool(settings.admin_token),
        "max_upload_bytes": settings.max_upload_bytes,
        "kinds": uploads.KINDS,
    }
    return request.app.state.templates.TemplateResponse(request, "store/tokenizers.html", context, status_code=status)

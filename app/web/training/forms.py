"""Reading a training request, JSON or multipart, into a `TrainSpec` and its documents.

JSON (`TrainRequest`): the body is parsed and validated on a thread (a corpus body may be
many megabytes). Multipart (the API with files, and the /train page's form): fields
`name`, `vocab_size`, `pattern`, `special_tokens` (a JSON array, or one per line),
`replace`, `description`, `text`, `token` (the page's admin token), and any number of
files (`files` or `file`, at most MAX_FILES) read up to the corpus limit and decoded as
strict UTF-8. The pasted text comes first, then the files in order, each a document.
Checks against the rules and limits are `app.jobs.spec`'s; this module only reads.
"""

from __future__ import annotations

import asyncio
import json

from fastapi import Request
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException

from app.errors import InvalidInput, TextTooLarge, excerpt
from app.jobs.spec import TrainSpec, corpus_limit
from app.settings import Settings
from app.web.edge.bodies import check_json_type, parse_json
from app.web.training.schemas import TrainRequest

MAX_FILES = 100
FIELDS = ("name", "vocab_size", "pattern", "special_tokens", "replace", "description", "text", "token")
FILE_FIELDS = ("files", "file")


def is_multipart(request: Request) -> bool:
    return request.headers.get("content-type", "").startswith("multipart/form-data")


async def read_json_request(request: Request) -> tuple[TrainSpec, list[str]]:
    check_json_type(request)
    raw = await request.body()
    body = await asyncio.get_running_loop().run_in_executor(None, parse_json, raw, TrainRequest)
    spec = TrainSpec(
        body.name, body.vocab_size, body.pattern, tuple(body.special_tokens), body.replace, body.description
    )
    return spec, ([body.text] if body.text else []) + list(body.texts or [])


async def read_form(request: Request, settings: Settings) -> tuple[dict[str, str], list[str]]:
    """The form's text fields and its documents (pasted text, then files)."""
    try:
        form = await request.form(
            max_files=MAX_FILES, max_fields=len(FIELDS) + 4, max_part_size=corpus_limit(settings)[0] + 1024
        )
    except MultiPartException as error:
        raise InvalidInput(
            f"the form could not be read ({error.message}); send at most {MAX_FILES} files and the named fields"
        ) from None
    fields: dict[str, str] = {}
    uploads: list[UploadFile] = []
    for key, value in form.multi_items():
        if key in FILE_FIELDS and isinstance(value, UploadFile):
            if value.filename or value.size:  # a file input left empty sends an empty part
                uploads.append(value)
        elif key in FIELDS and isinstance(value, str):
            fields[key] = value
        else:
            known = ", ".join((*FIELDS, *FILE_FIELDS))
            raise InvalidInput(f"unexpected form field {excerpt(key)}; the fields are {known} (files under 'files')")
    limit, setting = corpus_limit(settings)
    room = limit
    text = fields.get("text", "").replace("\r\n", "\n")
    room -= len(text.encode("utf-8", errors="surrogatepass"))
    raw: list[tuple[str, bytes]] = []
    for upload in uploads:
        data = await upload.read(max(room, 0) + 1)
        room -= len(data)
        if room < 0:
            raise TextTooLarge(
                f"the corpus is over {limit:,} bytes ({setting}) "
                f"by file {excerpt(upload.filename)}; send less text, or train with the CLI",
                code="corpus_too_large",
            )
        raw.append((upload.filename or "a file", data))
    files = await asyncio.get_running_loop().run_in_executor(None, decode_files, raw)
    return fields, ([text] if text else []) + files


def decode_files(raw: list[tuple[str, bytes]]) -> list[str]:
    texts = []
    for filename, data in raw:
        try:
            texts.append(data.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise InvalidInput(
                f"{filename} is not UTF-8 text (bad byte at offset {error.start:,}); "
                "convert it to UTF-8, or leave it out"
            ) from None
    return texts


def flag(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def special_tokens(value: str) -> tuple[str, ...]:
    """A JSON array of strings, or one special token per line."""
    value = value.strip()
    if value.startswith("["):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        if not isinstance(parsed, list) or not all(isinstance(token, str) for token in parsed):
            raise InvalidInput(
                'special_tokens must be a JSON array of strings such as ["<|endoftext|>"], or one token per line'
            )
        return tuple(parsed)
    return tuple(line.strip() for line in value.splitlines() if line.strip())


def spec_from_fields(fields: dict[str, str]) -> TrainSpec:
    name = fields.get("name", "").strip()
    if not name:
        raise InvalidInput("the form has no name: give the new tokenizer a name in the 'name' field")
    size = fields.get("vocab_size", "").strip()
    if not (size.isascii() and size.isdigit() and len(size) <= 12):
        raise InvalidInput(f"vocab_size {size[:40]!r} is not a whole number; give one such as 1000")
    return TrainSpec(
        name,
        int(size),
        fields.get("pattern") or "gpt4",
        special_tokens(fields.get("special_tokens", "")),
        flag(fields.get("replace")),
        fields.get("description", "").strip(),
    )

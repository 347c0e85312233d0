"""What the playground and the comparison share: page state helpers, the page address,
the tokenizer pickers (model names included), and rendering a page or its htmx fragment.

The state of a page lives in its URL (`/?tokenizer=cl100k_base&text=...`): a GET renders
it; the form POSTs (htmx while typing, or a plain submit without JavaScript, which is
answered with a redirect to that URL, so links and the back button work either way).
htmx requests get the URL back in `HX-Replace-Url` (typing) or `HX-Push-Url` (any other
control), so typing does not flood the history. One view serves both the full page and the
fragment (`HX-Request` header; responses carry `Vary: HX-Request`).

Tokenizer pickers take model names as well: `?tokenizer=gpt-4o` shows o200k_base and says
that gpt-4o uses it, and the address keeps "gpt-4o". With JavaScript, a search box next to
the picker (a `<datalist>` of model and tokenizer names) sets the `<select>`; its text is
posted as `model` and becomes the page's tokenizer name only when it stands for the
tokenizer the select holds, so the select always decides which tokenizer runs.

Pickers list the built-ins, the RECENT_SHOWN user tokenizers changed last and the selected
ones (`listed_entries`), so a page costs the same with 2,000 trained tokenizers as with five;
the search box finds the rest through `GET /api/tokenizers?q=` (app.js), and any name still
works in the address (`?tokenizer=NAME`), since names resolve on the server.
No routes here: app/web/pages/playground.py and compare.py hold them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import lru_cache
from urllib.parse import quote, urlencode, urlsplit

from fastapi import Request

from app.errors import InvalidInput, TokenprismError, excerpt
from app.settings import Settings
from app.tokenizers import models
from app.tokenizers.base import KINDS
from app.tokenizers.registry import Registry
from app.web.assets import STATIC_DIR, htmx_path
from app.web.edge.json_body import finished_response
from app.web.pages.samples import SAMPLES

MAX_QUERY_CHARS = 6000  # longer page addresses are not kept in the URL (uvicorn refuses heads over 16 KB)
KIND_LABELS = {
    "tiktoken": "tiktoken-style BPE",
    "sentencepiece": "SentencePiece",
    "bpe": "Own byte-level BPE",
    "huggingface": "huggingface (tokenizer.json)",
}
TYPING_FIELDS = {
    "text",
    "ids",
    "content",
    "name",
    "calls",
    "call_id",
    "tools",
    "reply",
}  # the chat's text fields, the budget's reply
HEAD_SLACK = 256  # tokens made past the drawing budget, so that a segment is not cut at its edge
USED_BY_SHOWN = 6  # model names listed before "and N more"
RECENT_SHOWN = 20  # user tokenizers a picker lists (the newest files); the search box finds the others


# ---------------------------------------------------------------------------------------
# Page state, from a query string or a form, and back to a URL.


def form_flag(params: Mapping, name: str) -> bool:
    return params.get(name) in ("1", "on", "true", "yes")


def page_text(value: str) -> str:
    """A textarea's value (what the user sees and edits) has LF line breaks only; browsers
    submit them as CRLF. Normalise the same way, so the page counts what the box shows."""
    return value.replace("\r\n", "\n").replace("\r", "\n")


_SAFE_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
_QUOTED = [chr(byte) if byte in _SAFE_BYTES else f"%{byte:02X}" for byte in range(256)]  # byte -> as in a URL


def quote_all(
    value: str | bytes, safe: str | bytes = "", encoding: str | None = None, errors: str | None = None
) -> str:
    """`urllib.parse.quote(value, safe="")`, a table lookup per byte (quote's own loop is ~8x slower)."""
    if safe:
        return quote(value, safe, encoding, errors) if isinstance(value, str) else quote(value, safe)
    return "".join(map(_QUOTED.__getitem__, value.encode("utf-8") if isinstance(value, str) else value))


def page_url(path: str, state) -> tuple[str, bool]:
    """The address that reproduces `state` (a page state with `query()`), and whether the text fit in it."""
    query = urlencode(state.query(), quote_via=quote_all)
    if len(query) <= MAX_QUERY_CHARS:
        return f"{path}?{query}", True
    return f"{path}?{urlencode(state.query(with_input=False), quote_via=quote_all)}", False


# ---------------------------------------------------------------------------------------
# Helpers shared by both pages.


def is_htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


async def read_form(request: Request, settings: Settings):
    # Starlette's default part limit (1 MB) is below our text limit in UTF-8; the body
    # limit middleware already caps the whole request.
    form = await request.form(max_part_size=settings.max_body_bytes, max_files=4)
    for key, value in form.multi_items():
        if not isinstance(value, str):
            raise InvalidInput(
                f"form field {excerpt(key)} is a file ({excerpt(value.filename)}); these pages take typed text only: "
                "paste the text into the box, or send it to POST /api/tokenize"
            )
    return form


@lru_cache(maxsize=1)
def asset_version() -> str:
    digest = hashlib.sha256()
    for path in sorted([*(STATIC_DIR / "css").glob("*.css"), *(STATIC_DIR / "js").glob("*.js")]):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def canonical(registry: Registry, name: str) -> str | None:
    """The tokenizer `name` (a tokenizer, alias or model name) stands for, or None."""
    try:
        return registry.resolve(name)
    except TokenprismError:
        return None


def named_tokenizer(registry: Registry, tokenizer: str, model: str) -> str:
    """The name a page shows and keeps in its address: the search box's `model` when it stands
    for the tokenizer the select holds (gpt-4o for o200k_base), else the select's `tokenizer`."""
    if not model or model == tokenizer:
        return tokenizer
    chosen = canonical(registry, tokenizer)
    return model if chosen is not None and canonical(registry, model) == chosen else tokenizer


def model_named(registry: Registry, name: str) -> models.Model | None:
    """The model row of `name` when it is a model name (not a tokenizer name or alias)."""
    return None if registry.has(name) else models.find(name)


def listed_entries(registry: Registry, selected=()) -> list:
    """The tokenizers a picker lists, in listing order: the built-ins, the RECENT_SHOWN user
    tokenizers whose files changed last, and those in `selected` (canonical names)."""
    shown = {entry.name for entry in registry.recent_user_entries(RECENT_SHOWN)} | set(selected)
    return [entry for entry in registry.entries() if not entry.user or entry.name in shown]


def name_directory(registry: Registry, selected=()) -> list[dict]:
    """The names a picker's search box takes without asking the server, for its <datalist>, in
    lookup order: the listed tokenizers' names and aliases, model names, then model-name prefixes."""
    entries = listed_entries(registry, selected)
    aliases = registry.aliases()
    have = {e.name for e in entries}
    names = [
        {
            "value": e.name,
            "tokenizer": e.name,
            "kind": "tokenizer",
            "available": True,
            "label": f"tokenizer · {e.kind} · {e.vocab_size:,} ids",
        }
        for e in entries
    ]
    names += [
        {"value": alias, "tokenizer": name, "kind": "tokenizer", "available": name in have, "label": f"= {name}"}
        for alias, name in aliases.items()
    ]
    for model in sorted(models.MODELS, key=lambda m: m.prefix):
        available = aliases.get(model.tokenizer, model.tokenizer) in have
        uses = model.tokenizer if available else f"{model.tokenizer} (not shipped)"
        what = f"names starting {model.name} → {uses}" if model.prefix else f"→ {uses}"
        names.append(
            {
                "value": model.name,
                "tokenizer": model.tokenizer,
                "kind": "prefix" if model.prefix else "model",
                "available": available,
                "label": f"{what} · {model.vendor} {model.family}",
            }
        )
    return names


def picker_context(registry: Registry, asked: str) -> dict:
    """What the playground's picker shows for the name `asked`: the tokenizer it stands for
    (`chosen`), the model row if it is a model name, and the models that use the tokenizer."""
    chosen = canonical(registry, asked)
    used_by = models.models_for(chosen) if chosen else []
    return {
        "chosen": chosen,
        "named_model": model_named(registry, asked) if chosen else None,
        "used_by": used_by[:USED_BY_SHOWN],
        "used_by_more": used_by[USED_BY_SHOWN:],
        "search_value": asked if chosen and asked != chosen else "",
    }


def tokenizer_groups(registry: Registry, selected=()) -> list[tuple[str, list]]:
    """The listed tokenizers (`listed_entries`) grouped by kind (tiktoken, SentencePiece, own BPE), for pickers."""
    entries = listed_entries(registry, selected)
    kinds = [*KIND_LABELS, *(kind for kind in KINDS if kind not in KIND_LABELS)]
    return [(KIND_LABELS.get(kind, kind), group) for kind in kinds if (group := [e for e in entries if e.kind == kind])]


def base_context(request: Request, settings: Settings, page: str) -> dict:
    return {
        "page": page,
        "htmx_src": f"/static/{htmx_path()}",
        "asset_version": asset_version(),
        "samples": SAMPLES,
        "hub_orgs": models.HUB_ORGS,  # for the pickers' datalist: "meta-llama/Llama-3.3-70B-Instruct" resolves
        "settings": settings,
        "share": getattr(
            request.state, "share", None
        ),  # a shared view's link (app/web/share/routes.py), for shared/_share.html
    }


def history_headers(request: Request, url: str) -> dict[str, str]:
    """HX-Replace-Url while typing, HX-Push-Url for any other change; nothing if unchanged."""
    current = request.headers.get("HX-Current-URL", "")
    parts = urlsplit(current)
    if f"{parts.path}?{parts.query}" == url:
        return {}
    if request.headers.get("HX-Trigger-Name") in TYPING_FIELDS:
        return {"HX-Replace-Url": url}
    return {"HX-Push-Url": url}


def respond(request: Request, template: str, fragment: str, context: dict, status: int, url: str, fits: bool):
    """The page (or, for htmx, its fragment) rendered to a finished response; runs on a pool thread."""
    context["page_url"] = url
    context["url_has_text"] = fits or context.get("share") is not None  # a /s/{id} address holds it all
    headers = {"Vary": "HX-Request", "Cache-Control": "no-store"}
    if is_htmx(request):
        headers.update(history_headers(request, url))
    html = request.app.state.templates.get_template(fragment if is_htmx(request) else template).render(context)
    return finished_response(
        html.encode("utf-8"), "text/html; charset=utf-8", request.headers.get("accept-encoding", ""), status, headers
    )

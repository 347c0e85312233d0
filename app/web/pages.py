"""The HTML pages: the playground at `/` and the comparison at `/compare`.

One view serves both the full page and the htmx fragment (`HX-Request` header; responses
carry `Vary: HX-Request`). The full page includes the same partial the fragment is.
The state of a page lives in its URL (`/?tokenizer=cl100k_base&text=...`): a GET renders
it; the form POSTs (htmx while typing, or a plain submit without JavaScript, which is
answered with a redirect to that URL, so links and the back button work either way).
htmx requests get the URL back in `HX-Replace-Url` (typing) or `HX-Push-Url` (any other
control), so typing does not flood the history.

Tokenizer pickers take model names as well: `?tokenizer=gpt-4o` shows o200k_base and says
that gpt-4o uses it, and the address keeps "gpt-4o". With JavaScript, a search box next to
the picker (a `<datalist>` of model and tokenizer names) sets the `<select>`; its text is
posted as `model` and becomes the page's tokenizer name only when it stands for the
tokenizer the select holds, so the select always decides which tokenizer runs.

Routers stay thin: parse the request into a state, call `engine_calls`, render.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import quote, urlencode, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from app.errors import InvalidInput, TokenprismError
from app.tokenizers.tokens import parse_ids
from app.settings import Settings
from app.tokenizers import models
from app.tokenizers.base import KINDS
from app.tokenizers.registry import Registry
from app.web import engine_calls
from app.web.assets import STATIC_DIR, htmx_path
from app.web.deps import services
from app.web.edge.json_body import finished_response
from app.web.edge.lean_route import LeanRoute
from app.web.samples import BY_KEY, DEFAULT_TEXT, SAMPLES
from app.web.tokenview import VIEWS, build_view, render_decoded

router = APIRouter(include_in_schema=False, route_class=LeanRoute)  # see lean_route.py

DEFAULT_TOKENIZER = "o200k_base"
DEFAULT_COMPARE = ("gpt2", "cl100k_base", "o200k_base", "mistral_v1", "tokenprism_4k")
MAX_QUERY_CHARS = 6000  # longer page addresses are not kept in the URL (uvicorn refuses heads over 16 KB)
KIND_LABELS = {"tiktoken": "tiktoken-style BPE", "sentencepiece": "SentencePiece",
               "bpe": "Own byte-level BPE", "huggingface": "huggingface (tokenizer.json)"}
TYPING_FIELDS = {"text", "ids"}
HEAD_SLACK = 256  # tokens made past the drawing budget, so that a segment is not cut at its edge
USED_BY_SHOWN = 6  # model names listed before "and N more"


# ---------------------------------------------------------------------------------------
# Page state, from a query string or a form, and back to a URL.


def _flag(params: Mapping, name: str) -> bool:
    return params.get(name) in ("1", "on", "true", "yes")


def _page_text(value: str) -> str:
    """A textarea's value (what the user sees and edits) has LF line breaks only; browsers
    submit them as CRLF. Normalise the same way, so the page counts what the box shows."""
    return value.replace("\r\n", "\n").replace("\r", "\n")


@dataclass
class PlaygroundState:
    tokenizer: str = DEFAULT_TOKENIZER
    text: str = DEFAULT_TEXT
    mode: str = "encode"  # or "decode"
    ids: str = ""
    view: str = "text"
    ws: bool = False
    special: bool = False
    model: str = ""  # the picker's search box: a model (or tokenizer) name, see `named_tokenizer`

    @classmethod
    def from_params(cls, params: Mapping) -> PlaygroundState:
        state = cls(
            tokenizer=str(params.get("tokenizer") or DEFAULT_TOKENIZER),
            model=str(params.get("model") or "").strip(),
            mode="decode" if params.get("mode") == "decode" else "encode",
            ids=_page_text(str(params.get("ids") or "")),
            view=params.get("view") if params.get("view") in VIEWS else "text",
            ws=_flag(params, "ws"),
            special=_flag(params, "special"),
        )
        if "text" in params:
            state.text = _page_text(str(params.get("text")))
        if (sample := BY_KEY.get(str(params.get("sample")))) is not None:
            state.text, state.mode = sample.text, "encode"
        return state

    def query(self, with_input: bool = True) -> list[tuple[str, str]]:
        pairs = [("tokenizer", self.tokenizer)]
        if self.mode == "decode":
            pairs.append(("mode", "decode"))
            if with_input:
                pairs.append(("ids", self.ids))
        elif with_input:
            pairs.append(("text", self.text))
        if self.view != "text":
            pairs.append(("view", self.view))
        if self.ws:
            pairs.append(("ws", "1"))
        if self.special:
            pairs.append(("special", "1"))
        return pairs


@dataclass
class CompareState:
    tokenizers: list[str] = field(default_factory=list)
    text: str = DEFAULT_TEXT
    ws: bool = False
    special: bool = False

    @classmethod
    def from_params(cls, params: Mapping, registry: Registry, from_form: bool = False) -> CompareState:
        chosen = [str(name) for name in params.getlist("tokenizers")] if hasattr(params, "getlist") else []
        if not chosen and not from_form:
            known = set(registry.names())
            chosen = [name for name in DEFAULT_COMPARE if name in known]
        state = cls(tokenizers=chosen, ws=_flag(params, "ws"), special=_flag(params, "special"))
        if "text" in params:
            state.text = _page_text(str(params.get("text")))
        if (sample := BY_KEY.get(str(params.get("sample")))) is not None:
            state.text = sample.text
        return state

    def query(self, with_input: bool = True) -> list[tuple[str, str]]:
        pairs = [("tokenizers", name) for name in self.tokenizers]
        if with_input:
            pairs.append(("text", self.text))
        if self.ws:
            pairs.append(("ws", "1"))
        if self.special:
            pairs.append(("special", "1"))
        return pairs


_SAFE_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
_QUOTED = [chr(byte) if byte in _SAFE_BYTES else f"%{byte:02X}" for byte in range(256)]  # byte -> as in a URL


def quote_all(value: str, safe: str = "", encoding=None, errors=None) -> str:
    """`urllib.parse.quote(value, safe="")`, a table lookup per byte (quote's own loop is ~8x slower)."""
    if safe:
        return quote(value, safe, encoding, errors)
    return "".join(map(_QUOTED.__getitem__, value.encode("utf-8")))


def page_url(path: str, state: PlaygroundState | CompareState) -> tuple[str, bool]:
    """The address that reproduces `state`, and whether the text fit in it."""
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
                f"form field {key!r} is a file ({value.filename!r}); these pages take typed text only: "
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


def name_directory(registry: Registry) -> list[dict]:
    """Every name a picker's search box takes, for its <datalist>, in lookup order:
    tokenizer names and aliases, model names, then model-name prefixes."""
    entries = registry.entries()
    aliases = registry.aliases()
    have = {e.name for e in entries}
    names = [{"value": e.name, "tokenizer": e.name, "kind": "tokenizer", "available": True,
              "label": f"tokenizer · {e.kind} · {e.vocab_size:,} ids"} for e in entries]
    names += [{"value": alias, "tokenizer": name, "kind": "tokenizer", "available": name in have,
               "label": f"= {name}"} for alias, name in aliases.items()]
    for model in sorted(models.MODELS, key=lambda m: m.prefix):
        available = aliases.get(model.tokenizer, model.tokenizer) in have
        uses = model.tokenizer if available else f"{model.tokenizer} (not shipped)"
        what = f"names starting {model.name} → {uses}" if model.prefix else f"→ {uses}"
        names.append({"value": model.name, "tokenizer": model.tokenizer, "kind": "prefix" if model.prefix else "model",
                      "available": available, "label": f"{what} · {model.vendor} {model.family}"})
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


def tokenizer_groups(registry: Registry) -> list[tuple[str, list]]:
    """Registered tokenizers grouped by kind (tiktoken, SentencePiece, own BPE), for pickers."""
    entries = registry.entries()
    kinds = [*KIND_LABELS, *(kind for kind in KINDS if kind not in KIND_LABELS)]
    return [(KIND_LABELS.get(kind, kind), group) for kind in kinds if (group := [e for e in entries if e.kind == kind])]


def base_context(request: Request, settings: Settings, page: str) -> dict:
    return {
        "page": page,
        "htmx_src": f"/static/{htmx_path()}",
        "asset_version": asset_version(),
        "samples": SAMPLES,
        "settings": settings,
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
    context["url_has_text"] = fits
    headers = {"Vary": "HX-Request", "Cache-Control": "no-store"}
    if is_htmx(request):
        headers.update(history_headers(request, url))
    html = request.app.state.templates.get_template(fragment if is_htmx(request) else template).render(context)
    return finished_response(
        html.encode("utf-8"), "text/html; charset=utf-8", request.headers.get("accept-encoding", ""), status, headers
    )


# ---------------------------------------------------------------------------------------
# The playground.


def sample_hint(text: str) -> str | None:
    return next((sample.hint for sample in SAMPLES if sample.text == text), None)


def render_playground(request: Request, settings: Settings, registry: Registry, state: PlaygroundState):
    state.tokenizer = named_tokenizer(registry, state.tokenizer, state.model)
    result = error = None
    status = 200
    head = settings.render_tokens + HEAD_SLACK
    try:
        if state.mode == "decode":
            result = engine_calls.decode(registry, settings, state.tokenizer, parse_ids(state.ids), head)
        else:
            result = engine_calls.tokenize_head(registry, settings, state.tokenizer, state.text, state.special, head)
    except TokenprismError as caught:
        error, status = caught, caught.status
    view = None
    if result is not None:
        view = build_view(result.text, result.tokens, state.view, state.ws, settings.render_tokens, result.ids,
                          settings.max_response_tokens)
    url, fits = page_url("/", state)
    decoded_url = None
    if result is not None and state.mode == "decode":
        as_text = PlaygroundState(tokenizer=state.tokenizer, text=result.text, special=state.special)
        decoded_url, decoded_fits = page_url("/", as_text)
        decoded_url = decoded_url if decoded_fits else None
    picker = picker_context(registry, state.tokenizer)
    shown = result.tokenizer.name if result else picker["chosen"]
    entry = next((e for e in registry.entries() if e.name == shown), None)
    context = {
        **base_context(request, settings, "playground"),
        **picker,
        # htmx: the line under the picker is swapped too, unless the request came from typing
        "picker_oob": is_htmx(request) and request.headers.get("HX-Trigger-Name") not in TYPING_FIELDS,
        "directory": [] if is_htmx(request) else name_directory(registry),  # the full page's <datalist>
        "state": state,
        "groups": tokenizer_groups(registry),
        "entry": entry,
        "result": result,
        "error": error,
        "view": view,
        "hint": sample_hint(state.text) if state.mode == "encode" else None,
        "decoded_url": decoded_url,
        "view_text": render_decoded(result.text, state.ws) if result is not None and state.mode == "decode" else "",
    }
    return respond(request, "playground.html", "_playground_fragment.html", context, status, url, fits)


@router.get("/")
async def playground(request: Request):
    settings, registry, pool = services(request)
    state = PlaygroundState.from_params(request.query_params)
    return await pool.run(render_playground, request, settings, registry, state, request=request)


@router.post("/")
async def playground_post(request: Request):
    settings, registry, pool = services(request)
    state = PlaygroundState.from_params(await read_form(request, settings))
    if not is_htmx(request):
        state.tokenizer = named_tokenizer(registry, state.tokenizer, state.model)
        url, fits = page_url("/", state)
        if fits:  # post/redirect/get: the address bar shows a link that reproduces the view
            return RedirectResponse(url, status_code=303)
    return await pool.run(render_playground, request, settings, registry, state, request=request)


# ---------------------------------------------------------------------------------------
# The comparison.


@dataclass
class Column:
    name: str
    kind: str
    vocab_size: int
    asked_as: str = ""  # the model name this column was asked for (gpt-4o), if not its tokenizer name
    result: object = None  # engine_calls.Tokenized
    error: TokenprismError | None = None
    view: object = None  # TokenView
    delta: int = 0
    bar: float = 0.0  # percent of the largest count
    best: bool = False


def render_compare(request: Request, settings: Settings, registry: Registry, state: CompareState):
    entries = {e.name: e for e in registry.entries()}
    columns: list[Column] = []
    error = None
    status = 200
    names: list[str] = []
    results: list = []
    try:
        names = engine_calls.check_tokenizer_names(state.tokenizers, registry, settings, minimum=2)
        text = engine_calls.check_text(state.text, settings)
    except TokenprismError as caught:
        error, status = caught, caught.status
    budget = max(500, settings.render_tokens // max(1, len(names)))
    for name in names:  # one tokenizer failing (a damaged file, say) shows its error in its column
        try:
            results.append(engine_calls.tokenize_head(registry, settings, name, text, state.special, budget + HEAD_SLACK))
        except TokenprismError as caught:
            results.append(caught)
    list_limit = settings.max_response_tokens // max(1, len(names))
    for name, item in zip(names, results, strict=False):
        entry = entries.get(name)
        column = Column(name=name, kind=entry.kind if entry else "", vocab_size=entry.vocab_size if entry else 0)
        if isinstance(item, TokenprismError):
            column.error = item
        else:
            column.result = item
            column.view = build_view(item.text, item.tokens, "text", state.ws, budget, item.ids, list_limit)
        columns.append(column)
    counted = [c for c in columns if c.result is not None]
    if counted:
        best = min(c.result.count for c in counted)
        most = max(c.result.count for c in counted) or 1
        for column in counted:
            column.delta = column.result.count - best
            column.best = column.delta == 0
            column.bar = round(100 * column.result.count / most, 2)
    stats = counted[0].result.stats if counted else None
    asked_as: dict[str, str] = {}  # canonical name -> the first other name it was asked by
    for asked in state.tokenizers:
        if (name := canonical(registry, asked)) is not None and name != asked:
            asked_as.setdefault(name, asked)
    for column in columns:
        column.asked_as = asked_as.get(column.name, "")
    url, fits = page_url("/compare", state)
    context = {
        **base_context(request, settings, "compare"),
        "state": state,
        "groups": tokenizer_groups(registry),
        "checked": {canonical(registry, asked) for asked in state.tokenizers} - {None},
        "models_of": {name: models.models_for(name) for name in entries},
        "directory": [] if is_htmx(request) else name_directory(registry),
        "columns": columns,
        "error": error,
        "stats": stats,
        "hint": sample_hint(state.text),
    }
    return respond(request, "compare.html", "_compare_result.html", context, status, url, fits)


@router.get("/compare")
async def compare(request: Request):
    settings, registry, pool = services(request)
    state = CompareState.from_params(request.query_params, registry)
    return await pool.run(render_compare, request, settings, registry, state, request=request)


@router.post("/compare")
async def compare_post(request: Request):
    settings, registry, pool = services(request)
    state = CompareState.from_params(await read_form(request, settings), registry, from_form=True)
    if not is_htmx(request):
        url, fits = page_url("/compare", state)
        if fits and state.tokenizers:  # none chosen: say so here (the bare URL means "the defaults")
            return RedirectResponse(url, status_code=303)
    return await pool.run(render_compare, request, settings, registry, state, request=request)

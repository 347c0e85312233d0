"""The merge replay page, `/train/replay?tokenizer=NAME&k=K&text=...`: a `bpe` tokenizer with
only its first k merges, drawn on a sample text.

It shows the sample's tokens with the first k merges (the shared token partial), the merges
around k ("t" + "h" -> "th", and how often each applies in the sample), and a chart of
tokens per character of the sample against k (SVG made here, drawn by the template). Its
state is its URL; a slider, step links and the text box change it (htmx swaps the result,
with `HX-Replace-Url` while dragging or typing and `HX-Push-Url` for a step or another
tokenizer), and it works without JavaScript (a GET form). Each merge also shows how often its
pair occurred in the training corpus, as a number, a bar and a sparkline over all merges
(merge_counts.py), when the model has the counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fastapi import Request
from markupsafe import Markup

from app.bpe import replay
from app.errors import TokenprismError
from app.tokenizers.tokens import clean_text, text_stats
from app.web.edge.json_body import finished_response
from app.web.markup.text_escapes import byte_label, render_text
from app.web.markup.tokenview import build_view
from app.web.pages.common import base_context, canonical, is_htmx, listed_entries, page_text, page_url
from app.web.training.merge_counts import bar_width, sparkline

DEFAULT_TOKENIZER = "tokenprism_4k"
MAX_SAMPLE_CHARS = 2_000
AROUND = 4  # merges shown before and after k
CHART_W, CHART_H, CHART_PAD = 1000, 300, 6
CHART_POINTS = 240
DEFAULT_SAMPLE = (
    "The cat sat on the mat, and then the other cat sat there too.\n"
    "def tokenize(text):\n"
    "    return [token for token in text.split() if token]\n"
)
STEPS = (
    ("first", "0", "Raw bytes (no merges)"),
    ("back10", "−10", "10 merges back"),
    ("back", "−1", "One merge back"),
    ("next", "+1", "One more merge"),
    ("next10", "+10", "10 more merges"),
    ("last", "All", "All merges"),
)


@dataclass
class ReplayState:
    tokenizer: str = DEFAULT_TOKENIZER
    k: int = 0
    text: str = DEFAULT_SAMPLE

    @classmethod
    def from_params(cls, params: Mapping) -> ReplayState:
        k = str(params.get("k") or "0").strip()
        text = params.get("text")
        return cls(
            str(params.get("tokenizer") or DEFAULT_TOKENIZER),
            int(k) if k.isascii() and k.isdigit() and len(k) < 10 else 0,
            DEFAULT_SAMPLE if text is None else page_text(str(text)),
        )

    def query(self, with_input: bool = True) -> list[tuple[str, str]]:
        pairs = [("tokenizer", self.tokenizer), ("k", str(self.k))]
        return pairs + ([("text", self.text)] if with_input and self.text != DEFAULT_SAMPLE else [])


def url_for(state: ReplayState, k: int) -> str:
    return page_url("/train/replay", ReplayState(state.tokenizer, k, state.text))[0]


def token_label(data: bytes) -> Markup:
    """A token's bytes for the merge list: the text with spaces, tabs and newlines marked, or
    `<0xE2>`-style bytes when they are a piece of a character."""
    try:
        return render_text(data.decode("utf-8"), show_ws=True)
    except UnicodeDecodeError:
        return Markup('<span class="esc">{}</span>').format(byte_label(data))


def merge_rows(model, counts: list[int], k: int) -> list[dict]:
    pairs = replay.pairs_of(model)
    trained = model.merge_counts
    rows = []
    for rank in range(max(0, k - AROUND), min(len(pairs), k + AROUND)):
        left, right = pairs[rank]
        rows.append(
            {
                "rank": rank + 1,
                "id": 256 + rank,
                "applied": rank < k,
                "next": rank == k,
                "left": token_label(model.id_to_bytes(left)),
                "right": token_label(model.id_to_bytes(right)),
                "merged": token_label(model.id_to_bytes(256 + rank)),
                "uses": counts[rank] - counts[rank + 1],
                "trained": trained[rank] if trained else None,
                "bar": bar_width(trained[rank], trained[0]) if trained else None,
            }
        )
    return rows


def chart(counts: list[int], chars: int, k: int) -> dict | None:
    """Tokens per character against k as SVG coordinates in a CHART_W x CHART_H box that the page
    stretches to its width (at most CHART_POINTS points); the axis labels are HTML beside it."""
    if chars == 0:
        return None
    n = len(counts) - 1
    xs = sorted({0, n, k, *(round(i * n / (CHART_POINTS - 1)) for i in range(CHART_POINTS))})
    high, low = counts[0] / chars, counts[-1] / chars
    span = (high - low) or 1.0

    def x_of(merges: int) -> float:
        return CHART_W * merges / n if n else 0.0

    def y_of(value: float) -> float:
        return CHART_PAD + (CHART_H - 2 * CHART_PAD) * (high - value) / span

    path = " ".join(f"{'M' if i == 0 else 'L'}{x_of(x):.1f},{y_of(counts[x] / chars):.1f}" for i, x in enumerate(xs))
    value = counts[k] / chars
    return {
        "w": CHART_W,
        "h": CHART_H,
        "path": path,
        "kx": round(x_of(k), 1),
        "ky": round(y_of(value), 1),
        "top": round(y_of(high), 1),
        "bottom": round(y_of(low), 1),
        "x_labels": [0, n // 2, n] if n > 1 else [0, n],
        "y_labels": [f"{high:.2f}", f"{low:.2f}"],
        "summary": f"Tokens per character of the sample: {high:.2f} with raw bytes, {low:.2f} with all {n:,} merges, "
        f"{value:.2f} with the first {k:,}.",
    }


def render_replay(request: Request, settings, registry, state: ReplayState):
    """The page (or, for htmx, its result and the slider out of band); runs on a pool thread."""
    context = {
        **base_context(request, settings, "train"),
        "section": "replay",
        "state": state,
        "error": None,
        "steps": [],
        "bpe_names": [
            e.name for e in listed_entries(registry, [canonical(registry, state.tokenizer)]) if e.kind == "bpe"
        ],
    }
    status, note = 200, None
    if len(state.text) > MAX_SAMPLE_CHARS:
        state.text, note = (
            state.text[:MAX_SAMPLE_CHARS],
            (
                f"The replay draws the first {MAX_SAMPLE_CHARS:,} characters of a sample; the playground takes longer texts."
            ),
        )
    try:
        model = replay.bpe_model(registry, state.tokenizer)
    except TokenprismError as error:
        context["error"], status, model = error, error.status, None
        state.k = 0
    if model is not None:
        text = clean_text(state.text)
        total = len(replay.pairs_of(model))
        state.k = min(state.k, total)
        cut = replay.with_first_merges(model, state.k)
        ids = cut.encode(text)
        counts = replay.token_counts(model, text)
        tokens = cut.tokens_of(text, ids[: settings.render_tokens + 256])
        context.update(
            {
                "model": model,
                "total": total,
                "vocab_now": 256 + state.k,
                "note": note,
                "view": build_view(text, tokens, "text", False, settings.render_tokens, ids),
                "stats": text_stats(text, len(ids)),
                "rows": merge_rows(model, counts, state.k),
                "chart": chart(counts, len(text), state.k),
                "spark": sparkline(model.merge_counts, state.k),
                "steps": [
                    (key, label, hint, url_for(state, target), target != state.k)
                    for (key, label, hint), target in zip(
                        STEPS,
                        (
                            0,
                            max(state.k - 10, 0),
                            max(state.k - 1, 0),
                            min(state.k + 1, total),
                            min(state.k + 10, total),
                            total,
                        ),
                        strict=True,
                    )
                ],
                "playground_url": page_url("/", _Playground(model.name, text))[0],
            }
        )
    url, fits = page_url("/train/replay", state)
    context.update(
        {
            "page_url": url,
            "url_has_text": fits,
            "htmx": is_htmx(request),
            "k_oob": request.headers.get("HX-Trigger-Name") != "k",
        }
    )
    headers = {"Vary": "HX-Request", "Cache-Control": "no-store"}
    if is_htmx(request):
        typing = request.headers.get("HX-Trigger-Name") in ("k", "text")
        headers["HX-Replace-Url" if typing else "HX-Push-Url"] = url
    template = "train/_replay_result.html" if is_htmx(request) else "train/train.html"
    html = request.app.state.templates.get_template(template).render(context)
    return finished_response(
        html.encode("utf-8"), "text/html; charset=utf-8", request.headers.get("accept-encoding", ""), status, headers
    )


@dataclass
class _Playground:
    tokenizer: str
    text: str

    def query(self, with_input: bool = True) -> list[tuple[str, str]]:
        return [("tokenizer", self.tokenizer)] + ([("text", self.text)] if with_input else [])

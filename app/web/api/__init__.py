"""The JSON API under /api, plus /healthz and /docs (Swagger UI from local files).

Thin over the engine: parse (schemas), call `engine_calls`, return a dict. Every failure
is a `TokenprismError` or a validation error, rendered by `errors.py` in the one shape
`{"error": {"code", "message"}}`. Responses that grow with the text (tokenize, compare,
decode) are built and serialised in a worker thread, so a request with hundreds of
thousands of tokens does not hold the event loop while its JSON is written.

Decisions (also in the OpenAPI descriptions):
- /api/count (texts) and /api/compare without "tokenizers" use the first `max_compare`
  built-ins (`default_names`, listed by /api/limits), not every built-in: one request takes
  at most `max_compare` tokenizers. Others, and user-trained ones, are used only when named. /api/count with
  "messages" and no "tokenizers" uses the tokenizers chat counting is defined for.
- Counts are keyed by canonical name: "r50k_base" is answered as "gpt2".
- Every field that takes a tokenizer name takes a model name too (GET /api/models lists them):
  "gpt-4o" is answered as "o200k_base"; a model whose tokenizer is not shipped is a 404.
- A model ("model", or a model name where a tokenizer name goes) adds its budget (app/pricing/budget.py:
  context used, exact costs) to tokenize, chat, count and compare; "model" decides the tokenizer, and a
  different tokenizer asked with it is a 422 (engine_calls.resolve_with_model, names_and_models).
- /api/decode's "text" is the reference library's decode of the ids; the tokens' ranges
  index into "tokens_text" (the tokens' bytes decoded), which differs only where that
  library drops or rewrites pieces.

The routes sit in a module per concern (meta, catalog, tokens, count, decode; common holds what they
share); `ROUTES` is what create_app adds, in this order.
"""

from __future__ import annotations

# Imported in the routes' order: importing registers each request body's schema for /docs in that order.
# isort: off
from app.web.api import meta, catalog, tokens, count, decode
# isort: on

ROUTES = [
    *meta.router.routes,
    *meta.api.routes,
    *catalog.api.routes,
    *tokens.api_post.routes,
    *count.api_post.routes,
    *decode.api_post.routes,
]

"""tokenprism: a tokenizer playground and comparison lab.

The engine lives in `app.tokenizers` (no web code); `app.web` serves pages and the JSON
API over it; `app.cli` is the `tokenprism` command.
"""

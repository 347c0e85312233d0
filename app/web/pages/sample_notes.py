"""What each sample teaches, said for one tokenizer: one or two plain sentences whose every
number and claim comes from encoding the sample with that tokenizer (its tokens, their
ids and bytes, and its special tokens), so the note is true for whichever tokenizer it
stands next to: a built-in, an own BPE or a tokenizer a user added.

`note_for(text, tokenizer, version)` is what the pages call, on the pool thread that
renders them: the note of the sample whose text is `text` (None for any other text),
cached in a small LRU per (sample, tokenizer name, registry version, tokenizer object),
so a user tokenizer replaced under the same name is explained afresh.

Leaves out: HTTP and markup (templates show the string, escaped), and anything about a
tokenizer other than the one given (the comparison gives each column its own note).
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections import OrderedDict

from app.tokenizers.base import Tokenizer
from app.web.pages.sample_note_writers import NOTES
from app.web.pages.samples import BY_TEXT, Sample

log = logging.getLogger(__name__)
CACHE_SIZE = 512  # (sample, tokenizer) pairs: 9 samples x every tokenizer of a busy server


def build_note(sample: Sample, tokenizer: Tokenizer) -> str:
    """The note of `sample` for `tokenizer`, computed now (no cache)."""
    return NOTES[sample.key](tokenizer, sample.text)


# ---------------------------------------------------------------------------------------
# The cache the pages go through.

_cache: OrderedDict[tuple, tuple[weakref.ref, str | None]] = OrderedDict()
_lock = threading.Lock()


def note_for(text: str, tokenizer: Tokenizer, version: object = None) -> str | None:
    """The note for the sample whose text is `text`, for `tokenizer` (the registry entry's
    `version` tells a replaced user file apart); None when `text` is no sample. A tokenizer
    the note cannot be computed for gets no note (logged), never a failed page."""
    sample = BY_TEXT.get(text)
    if sample is None:
        return None
    key = (sample.key, tokenizer.name, version, id(tokenizer))
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[0]() is tokenizer:  # the same object, not a new one at a reused address
            _cache.move_to_end(key)
            return hit[1]
    try:
        note = build_note(sample, tokenizer)
    except Exception:  # a user tokenizer this code did not foresee: the page goes on without a note
        log.exception("no %s note for tokenizer %r", sample.key, tokenizer.name)
        note = None
    with _lock:
        _cache[key] = (weakref.ref(tokenizer), note)
        _cache.move_to_end(key)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return note

"""The token inspector and vocabulary browser's engine (no web code).

- `vocab.py`: a tokenizer's vocabulary as one index (exact, prefix, substring, regex, id
  lookups; stats), built once per tokenizer;
- `lineage.py`, `sentencepiece.py`: merge parents, rank and score for every kind;
- `cache.py`: one index and lineage per tokenizer, built lazily under a lock;
- `facts.py`: one token's facts, its merge tree, the same bytes in other tokenizers;
- `search.py`: the vocabulary search with its bounds;
- `undertrained.py`: the published under-trained token lists (tokenizers/under_trained.tsv).
"""

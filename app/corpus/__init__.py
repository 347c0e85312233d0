"""Corpus-scale work: counting a dataset's tokens and the chunk-counting pass of training.

- `sources`: which files a corpus is (paths, directories with include/exclude globs,
  stdin), in which order, and how it is cut into tasks (by files, byte ranges and Parquet
  row groups; never inside a document).
- `readers`: the documents of one task's parts (text, .jsonl, .jsonl.gz; `parquet` for
  .parquet through pyarrow), read in bounded memory; unreadable files and bad records
  become `Problems` (`problems`), never exceptions.
- `portable`: tokenizers as they travel to workers (built-ins by name, others by file).
- `work`: the task functions that run on the workers.
- `runner`: where tasks run: in this process, a local process pool, or Dask.
- `count` and `training`: the two jobs built on them.

Results never depend on how the work was split: counts are sums, and chunk counts are
added in corpus order (see `app.bpe.train.add_counts`).
"""

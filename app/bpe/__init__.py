"""tokenprism's own byte-level BPE: the model and its encoder (`model`), training (`train`,
with the merge loop in the C extension `_core`), split patterns under a time bound
(`split`), the `.bpe` model file (`model_file`) and the recipe of the shipped
tokenprism_4k (`default_model`). It implements `app.tokenizers.base.Tokenizer`. Also the
exact encoder the tiktoken-style backends use (`engine`, over the C extension `_engine`)."""

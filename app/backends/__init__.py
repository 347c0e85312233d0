"""Adapters from tokenizer libraries to the one interface (app.tokenizers.base.Tokenizer):
tiktoken (and the tiktoken-style Tekken and Qwen files), SentencePiece and Hugging Face
tokenizer.json. They read no files themselves: app.tokenizers.storage.files does the I/O and the
registry builds them."""

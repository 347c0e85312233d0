"""Hugging Face `tokenizer.json` files (`backend.HuggingFaceTokenizer`), and what makes them fast
and exact: our C engine for DeepSeek's rules (`engine`), long texts cut where that is exact
(`cuts`), ASCII cut into the library's chunks by one regex (`ascii_counter`), the playground's
chunks (`chunks`) and the bytes behind each token's string (`pieces`).

Left out: the library itself, which stays the reference and the fallback.
"""

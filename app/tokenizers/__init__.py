"""The tokenizer engine: one interface (`Tokenizer` in base.py, `Token` in tokens.py), the
tokenizers' files, and above the backends the registry (registry.py, `get_registry`).

No web code lives here. Import what you need from the submodules: this package re-exports
nothing, so importing the engine's types (base, tokens) never loads the registry, which sits
above the backends (tests/test_layers.py).
"""

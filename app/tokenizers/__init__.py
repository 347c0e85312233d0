"""The tokenizer engine: one interface (`Tokenizer`, `Token`), several backends, a registry.

No web code lives here. Import what you need from the submodules; the common names are
re-exported: `Token`, `Segment`, `segments`, `Tokenizer`, `get_registry`.
"""

from app.tokenizers.base import Tokenizer
from app.tokenizers.registry import Registry, get_registry
from app.tokenizers.tokens import Segment, Stats, Token, segments, text_stats

__all__ = ["Registry", "Segment", "Stats", "Token", "Tokenizer", "get_registry", "segments", "text_stats"]

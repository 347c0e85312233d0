"""SentencePiece-backed tokenizers (the Mistral 7B v0.1 model).

Ids equal `SentencePieceProcessor.encode(text)` with no BOS/EOS. For the visualizer each
piece of an encoded text stands for the characters SentencePiece's offsets give it (a
`<0xNN>` byte-fallback piece: that byte), so the pieces join to the input's UTF-8; the
space SentencePiece adds in front of the text (its dummy prefix) is in no piece. For ids
alone (decoding), `▁` is a space and the dummy prefix is dropped from the first piece,
exactly as SentencePiece's decoder does. Control pieces (`<s>`, `</s>`) and `<unk>` stand for their own names
and are marked special; they are never parsed out of input text, so `allow_special`
has no effect here. `count_batch` goes through SentencePiece's batch encoder.
"""

from __future__ import annotations

import os

import sentencepiece

from app.tokenizers.base import Tokenizer
from app.tokenizers.chunks import SENTENCEPIECE_NOTE

_SPACE_MARK = "\u2581"
COUNT_THREADS = min(4, os.cpu_count() or 1)


class SentencePieceTokenizer(Tokenizer):
    kind = "sentencepiece"
    chunks_note = SENTENCEPIECE_NOTE

    def __init__(self, name: str, description: str, model_proto: bytes):
        self.name = name
        self.description = description
        self._processor = sentencepiece.SentencePieceProcessor(model_proto=model_proto)
        processor = self._processor
        self._pieces: list[bytes] = []
        self._starts_with_space: list[bool] = []
        self._is_byte: list[bool] = []
        special = set()
        for token_id in range(processor.get_piece_size()):
            piece = processor.id_to_piece(token_id)
            if processor.is_byte(token_id):
                data = bytes([int(piece[3:5], 16)])
            elif processor.is_control(token_id) or processor.is_unknown(token_id):
                data = piece.encode("utf-8")
                special.add(token_id)
            else:
                data = piece.replace(_SPACE_MARK, " ").encode("utf-8")
            self._pieces.append(data)
            self._is_byte.append(processor.is_byte(token_id))
            self._starts_with_space.append(not processor.is_byte(token_id) and piece.startswith(_SPACE_MARK))
        self._special_ids = frozenset(special)

    @property
    def processor(self) -> sentencepiece.SentencePieceProcessor:
        """The library's processor built from the model file (for reading its pieces, not for changing)."""
        return self._processor

    @property
    def vocab_size(self) -> int:
        return len(self._pieces)

    @property
    def special_ids(self) -> frozenset[int]:
        return self._special_ids

    def piece(self, token_id: int) -> str:
        """SentencePiece's own name for an id (with `▁` for spaces)."""
        return self._processor.id_to_piece(token_id)

    def has_id(self, token_id: int) -> bool:
        return 0 <= token_id < len(self._pieces)

    def encode(self, text: str, allow_special: bool = False) -> list[int]:
        return self._processor.encode(text)

    def encode_batch(self, texts: list[str], allow_special: bool = False) -> list[list[int]]:
        """SentencePiece's batch encoder over the texts (one call that lets go of the GIL; its own
        threads, at most COUNT_THREADS), the same ids as `encode` of each."""
        return self._processor.encode(list(texts), num_threads=COUNT_THREADS) if texts else []

    def count_batch(self, texts: list[str], allow_special: bool = False) -> list[int]:
        return [len(ids) for ids in self.encode_batch(texts)]

    def id_to_bytes(self, token_id: int) -> bytes:
        return self._pieces[token_id]

    def token_bytes(self, ids: list[int]) -> list[bytes]:
        pieces = [self._pieces[i] for i in ids]
        if pieces and self._starts_with_space[ids[0]]:
            pieces[0] = pieces[0][1:]  # the dummy prefix: not in the input, dropped by decode too
        return pieces

    def encode_with_pieces(self, text: str, allow_special: bool = False) -> tuple[list[int], list[bytes]]:
        # From SentencePiece's own offsets: a literal "▁" in the text is encoded like a
        # space, so the pieces alone cannot say which of the two the text had.
        mapping = self._processor.EncodeAsOffsetMapping(text)
        ids = mapping["ids"]
        pieces = [
            self._pieces[i] if self._is_byte[i] else text[start:end].encode("utf-8")
            for i, (start, end) in zip(ids, mapping["offsets"], strict=True)
        ]
        return ids, pieces

    def decode(self, ids: list[int]) -> str:
        return self._processor.decode(ids)

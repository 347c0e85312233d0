"""Merge parents of SentencePiece pieces (the Mistral models, uploaded .model files).

A SentencePiece BPE model stores no merges, only pieces with scores: encoding starts from
the characters of the text and repeatedly joins the adjacent pair whose joined text is a
piece with the best score (the leftmost on ties). So a piece's parents are found by
replaying that on the piece's own text, with only the pieces that rank before it (a
better score, or the same score and a lower id): the last join gives the two parents.
Single characters are the base (BPE starts from them); a character with no piece of its
own falls back to its byte pieces (`<0xNN>`); user-defined pieces are matched whole, never
merged. A piece the replay does not build gets the split into two lower-ranked pieces that
ranks earliest, marked "split". Results are memoised per piece.

The model type (BPE, Unigram, ...) and the user-defined pieces are read from the model's
own protobuf (TrainerSpec field 3, `model_type`: 1 Unigram, 2 BPE, 3 word, 4 char;
Unigram when absent; a piece's field 3, its type, 4 for user-defined) with a few lines
of wire-format reading, so no protobuf package is needed. Unigram pieces have
scores and no merges.
"""

from __future__ import annotations

from collections.abc import Iterator

from app.inspect.lineage import BASE_NOTE, BYTE_NOTE, KIND_NOTES, NO_SPLIT_NOTE, SPECIAL_NOTE, Lineage, Parents
from app.inspect.vocab import VocabIndex

SPACE = "\u2581"
UNIGRAM, BPE = 1, 2  # TrainerSpec.model_type
USER_DEFINED = 4  # SentencePiece.type


def sentencepiece_lineage(tokenizer, index: VocabIndex) -> Lineage:
    processor = tokenizer.processor  # the SentencePieceProcessor the backend built
    scores = {i: processor.get_score(i) for i in range(processor.get_piece_size())}
    proto = processor.serialized_model_proto()
    model_type = _model_type(proto)
    if model_type == BPE:
        return SentencePieceBPE(index, processor, scores, _user_defined(proto))
    key = "sentencepiece-unigram" if model_type == UNIGRAM else "sentencepiece-other"
    return Lineage(index, KIND_NOTES[key], scores)


class SentencePieceBPE(Lineage):
    def __init__(self, index: VocabIndex, processor, scores: dict[int, float], user_defined: frozenset[int]):
        super().__init__(index, None, scores)
        self._is_byte = [processor.is_byte(i) for i in range(processor.get_piece_size())]
        self._user_defined = user_defined
        normal = [
            i
            for i in range(processor.get_piece_size())
            if not (
                processor.is_control(i)
                or processor.is_unknown(i)
                or processor.is_byte(i)
                or processor.is_unused(i)
                or i in user_defined
            )
        ]
        self._pieces = {i: processor.id_to_piece(i) for i in normal}
        self._ids = {piece: i for i, piece in self._pieces.items()}
        self._bytes = {processor.id_to_piece(i): i for i in range(len(self._is_byte)) if self._is_byte[i]}  # <0xNN>
        merged = sorted((i for i in normal if len(self._pieces[i]) > 1), key=lambda i: (-scores[i], i))
        self._rank = {i: rank for rank, i in enumerate(merged)}
        self._memo: dict[int, Parents | None] = {}

    def rank(self, token_id: int) -> int | None:
        return self._rank.get(token_id)

    def note(self, token_id: int) -> str | None:
        if token_id < len(self._is_byte) and self._is_byte[token_id]:
            return BYTE_NOTE + " (a byte-fallback piece)"
        if token_id in self._user_defined:
            return "a user-defined piece: matched whole in the text, never merged"
        if token_id not in self._pieces:
            return SPECIAL_NOTE
        return BASE_NOTE if token_id not in self._rank else NO_SPLIT_NOTE

    def parents(self, token_id: int) -> Parents | None:
        if token_id not in self._rank:
            return None
        if token_id not in self._memo:
            self._memo[token_id] = self._work_out(token_id)
        return self._memo[token_id]

    def _usable(self, text: str, limit: int) -> int | None:
        """The id of piece `text` if it is a base character or ranks below `limit`."""
        found = self._ids.get(text)
        if found is None:
            return None
        rank = self._rank.get(found)
        return found if rank is None or rank < limit else None

    def _work_out(self, token_id: int) -> Parents | None:
        limit, text = self._rank[token_id], self._pieces[token_id]
        symbols: list[tuple[str, int]] = []  # (text, id)
        for char in text:
            found = self._ids.get(char)
            if found is not None:
                symbols.append((char, found))
            else:  # byte fallback: the character's UTF-8 bytes as <0xNN> pieces
                symbols += [
                    (char if k == 0 else "", self._bytes.get(f"<0x{byte:02X}>", -1))
                    for k, byte in enumerate(char.encode("utf-8"))
                ]
        while len(symbols) > 2:
            best = None
            for i in range(len(symbols) - 1):
                joined = symbols[i][0] + symbols[i + 1][0]
                if symbols[i][1] not in self._pieces or symbols[i + 1][1] not in self._pieces:
                    continue  # byte-fallback pieces never merge
                found = self._usable(joined, limit)
                if found is not None and (best is None or self._key(found) < self._key(best[1])):
                    best = (i, found)
            if best is None:
                break
            i, found = best
            symbols[i : i + 2] = [(symbols[i][0] + symbols[i + 1][0], found)]
        if len(symbols) == 2 and all(s[1] in self._pieces for s in symbols):
            return Parents(symbols[0][1], symbols[1][1], "merge")
        splits = []
        for cut in range(1, len(text)):
            left, right = self._usable(text[:cut], limit), self._usable(text[cut:], limit)
            if left is not None and right is not None:
                splits.append((max(self._key(left), self._key(right)), cut, left, right))
        if not splits:
            return None
        _, _, left, right = min(splits)
        return Parents(left, right, "split")

    def _key(self, token_id: int) -> tuple[int, int]:
        """Earlier merges first: base characters before everything, then by rank."""
        rank = self._rank.get(token_id)
        return (0, 0) if rank is None else (1, rank)


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def _fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value) of a protobuf message: ints for varints, bytes for the rest."""
    at = 0
    value: int | bytes
    while at < len(data):
        key, at = _varint(data, at)
        wire = key & 7
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 2:
            size, at = _varint(data, at)
            value, at = data[at : at + size], at + size
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, at = data[at : at + size], at + size
        else:
            raise ValueError(f"protobuf wire type {wire} is not supported")
        yield key >> 3, value


def _user_defined(proto: bytes) -> frozenset[int]:
    """Ids of the USER_DEFINED pieces (ModelProto.pieces, field 1; a piece's type is field 3, 4 = user-defined)."""
    found = set()
    try:
        pieces = (value for number, value in _fields(proto) if number == 1 and isinstance(value, bytes))
        for piece_id, piece in enumerate(pieces):
            if any(number == 3 and value == USER_DEFINED for number, value in _fields(piece)):
                found.add(piece_id)
    except (IndexError, ValueError):
        pass
    return frozenset(found)


def _model_type(proto: bytes) -> int:
    """ModelProto.trainer_spec (field 2) .model_type (field 3); Unigram when absent."""
    try:
        for number, value in _fields(proto):
            if number == 2 and isinstance(value, bytes):
                for inner, kind in _fields(value):
                    if inner == 3 and isinstance(kind, int):
                        return kind
    except (IndexError, ValueError):
        pass
    return UNIGRAM

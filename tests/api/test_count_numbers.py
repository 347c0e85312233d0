"""POST /api/count asks the tokenizers for numbers (`count_batch`, which a backend answers without
building ids where it can), and its counts equal `len(encode)` for every built-in, per text and in total."""

from __future__ import annotations

from tests.backends.test_counting import TEXTS
from tests.reference import BUILTIN_NAMES


def test_api_count_asks_count_batch_and_equals_len_encode_for_every_builtin(client, registry, monkeypatch):
    texts = [text for text in TEXTS if text]
    for name in BUILTIN_NAMES:
        tokenizer = registry.get(name)
        expected = [len(tokenizer.encode(text, True)) for text in texts]
        asked = []
        real = tokenizer.count_batch

        def spy(texts, allow_special=False, real=real, asked=asked):
            asked.append(len(texts))
            return real(texts, allow_special)

        monkeypatch.setattr(tokenizer, "count_batch", spy)
        reply = client.post("/api/count", json={"texts": texts, "tokenizers": [name], "allow_special": True})
        assert reply.status_code == 200, reply.text
        body = reply.json()
        assert [item["counts"][name] for item in body["items"]] == expected, name
        assert body["counts"][name] == sum(expected)
        single = client.post("/api/count", json={"text": texts[-1], "tokenizers": [name], "allow_special": True})
        assert single.json()["counts"][name] == expected[-1], name
        assert asked == [len(texts), 1], name
        monkeypatch.undo()

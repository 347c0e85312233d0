"""The playground's "Fewest tokens" option without a browser: both counts are the API's, the
differing places are listed with their text escaped, the option is kept in the address, and a
SentencePiece tokenizer says why it does not apply while its tokens are still drawn."""

from __future__ import annotations

from tests.api.test_models_api import Elements


def test_fewest_panel_shows_the_api_counts_and_the_places(client):
    api = client.post(
        "/api/tokenize", json={"tokenizer": "tokenprism_4k", "text": "<b> jumps", "encoding": "shortest"}
    ).json()
    response = client.get("/", params={"tokenizer": "tokenprism_4k", "text": "<b> jumps", "fewest": "1"})
    assert response.status_code == 200
    page = Elements(response.text)
    [count] = page.select("strong", data_role="fewest-count")
    [bpe] = page.select("strong", data_role="bpe-count")
    assert (count["text"], bpe["text"]) == (str(api["count"]), str(api["bpe_count"]))
    [_places] = page.select("ul", data_role="fewest-differences")
    assert "<mark>umps</mark>: BPE <code>u · mp · s</code>, fewest <code>um · ps</code>" in response.text
    assert "<b>" not in response.text.split('data-role="fewest"')[1]  # the text is escaped
    assert len(page.select("div", aria_label="Fewest tokens of the text")) == 1
    marked = [(e["attrs"]["data-start"], e["text"]) for e in page.select("bdi") if " cut" in e["attrs"]["class"]]
    assert marked == [("6", "mp"), ("8", "s"), ("7", "ps")]  # BPE's drawing first: j·u·mp·s against j·um·ps


def test_option_kept_in_the_address(client):
    response = client.post("/", data={"tokenizer": "gpt2", "text": "hi", "fewest": "1"}, follow_redirects=False)
    assert response.status_code == 303 and "fewest=1" in response.headers["location"]


def test_off_by_default(client):
    assert 'data-role="fewest"' not in client.get("/", params={"tokenizer": "gpt2", "text": "hi"}).text


def test_sentencepiece_says_why(client):
    response = client.get("/", params={"tokenizer": "mistral_v1", "text": "hello", "fewest": "1"})
    assert response.status_code == 200
    [message] = Elements(response.text).select("p", data_role="fewest-error")
    assert "sentencepiece" in message["text"]


def test_comparison_columns_show_both_counts(client, registry):
    from app.tokenizers.lecture.shortest import shortest

    response = client.get(
        "/compare",
        params=[("tokenizers", "tokenprism_4k"), ("tokenizers", "mistral_v1"), ("text", "he jumps"), ("fewest", "1")],
    )
    assert response.status_code == 200
    page = Elements(response.text)
    found = shortest(registry.get("tokenprism_4k"), "he jumps")
    [count] = page.select("strong", data_role="fewest-count")
    [bpe] = page.select("span", data_role="bpe-count")
    assert (count["text"], bpe["text"]) == (str(len(found.ids)), str(len(found.bpe_ids)))
    lines = page.select("p", data_role="fewest-line")
    assert len(lines) == 2 and sum("sentencepiece" in line["text"] for line in lines) == 1  # mistral_v1 says why not
    off = client.get("/compare", params=[("tokenizers", "tokenprism_4k"), ("tokenizers", "gpt2"), ("text", "he")])
    assert 'data-role="fewest-line"' not in off.text

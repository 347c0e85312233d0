"""The comparison page's "tokens per character by script" table (templates/compare/_scripts.html)."""

from __future__ import annotations

import re
from html import unescape


def cells(html: str, script: str) -> dict[str, str]:
    row = re.search(rf'<tr data-script="{re.escape(script)}">(.*?)</tr>', html, re.S).group(1)
    return {
        name: unescape(re.sub(r"<[^>]+>", "", value)).strip()
        for name, value in re.findall(r'data-tokenizer="([^"]+)"[^>]*>(.*?)</td>', row, re.S)
    }


def test_compare_page_shows_cost_by_script(client):
    response = client.get(
        "/compare", params=[("text", "안녕하세요 hello world"), ("tokenizers", "cl100k_base"), ("tokenizers", "gpt2")]
    )
    assert response.status_code == 200
    html = response.text
    assert 'data-role="by-script"' in html
    assert re.findall(r'<tr data-script="([^"]+)"', html) == ["Latin", "Hangul", "Common"]
    assert cells(html, "Hangul")["cl100k_base"] == "1.00 (5)"
    assert cells(html, "Latin")["cl100k_base"] == "0.20 (2)"
    assert cells(html, "Hangul")["gpt2"] == "2.80 (14)"  # as docs/web.md says


def test_chat_mode_has_no_script_table(client):
    response = client.get("/compare", params={"mode": "chat"})
    assert response.status_code == 200
    assert 'data-role="by-script"' not in response.text

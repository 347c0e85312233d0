"""Every page's footer carries the attribution Meta's Llama 3 and Llama 4 agreements ask a
user interface offering their tokenizers to display (THIRD_PARTY.md, "Built with Llama")."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.main import create_app


@pytest.fixture(scope="module")
def web(settings, registry):
    with TestClient(create_app(settings, registry)) as client:
        yield client


@pytest.mark.parametrize("path", ["/", "/compare", "/tokenizers", "/train", "/inspect", "/no-such-page"])
def test_every_page_says_built_with_llama(web, path):
    page = web.get(path)
    footer = re.search(r'<footer class="site">(.*?)</footer>', page.text, re.S)
    assert footer is not None, f"{path} has no site footer"
    notice = re.sub(r"\s+", " ", footer.group(1))
    assert "Built with Meta Llama 3. Built with Llama." in notice
    assert "Llama 4 Community License" in notice and "Meta Llama 3 Community License" in notice

"""Issue 19, point 5: /api/count and /api/compare without `tokenizers` use one named default
set, and the OpenAPI description says which tokenizers it holds and why (not "every built-in")."""

from __future__ import annotations

import re

from app.web.api.common import default_names


def test_count_and_compare_default_to_the_set_limits_lists(client, registry, settings):
    listed = client.get("/api/limits").json()["default_tokenizers"]
    assert listed == default_names(registry, settings)
    assert len(listed) == settings.max_compare < len([e for e in registry.entries() if not e.user])
    counted = client.post("/api/count", json={"text": "hello"}).json()["counts"]
    compared = [r["tokenizer"] for r in client.post("/api/compare", json={"text": "hello"}).json()["results"]]
    assert list(counted) == compared == listed


def test_the_openapi_description_names_the_default_set(client, registry, settings):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    count = schemas["CountRequest"]["properties"]["tokenizers"]["description"]
    compare = schemas["CompareRequest"]["properties"]["tokenizers"]["description"]
    for text in (count, compare):
        assert "Omitted: every built-in" not in text  # the old claim, which was not true
        assert "default_tokenizers" in text and "max_compare" in text
        named = re.search(r"these are (.*?)\.", text).group(1)
        assert re.split(r", | and ", named) == default_names(registry, settings)  # the description is the truth
        rest = [e.name for e in registry.entries() if not e.user and e.name not in default_names(registry, settings)]
        assert all(name in text for name in rest)  # and says which are left out
    assert count.split("Which tokenizers to count with. ")[1].startswith(
        compare.split("Which tokenizers to compare. ")[1]
    )

"""Every setting is documented: the settings table of docs/settings.md (linked from the README)
names each TOKENPRISM_* variable, and no variable that does not exist."""

from __future__ import annotations

import re

import pytest

from app.settings import ENV_PREFIX, REPO_ROOT, Settings

PAGE = (REPO_ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
TABLE = PAGE[PAGE.index("| variable | default | meaning |") :]
TABLE = TABLE[: TABLE.index("\n\n")]
DOCUMENTED = set(re.findall(r"^\| `(TOKENPRISM_[A-Z0-9_]+)` \|", TABLE, flags=re.M))


@pytest.mark.parametrize("field", sorted(Settings.model_fields))
def test_the_setting_has_a_row_in_the_settings_table(field):
    assert f"{ENV_PREFIX}{field.upper()}" in DOCUMENTED


def test_the_table_names_no_setting_that_does_not_exist():
    assert {f"{ENV_PREFIX}{field.upper()}" for field in Settings.model_fields} >= DOCUMENTED

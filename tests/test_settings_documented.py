"""Every setting is documented: the README's settings table names each TOKENPRISM_* variable."""

from __future__ import annotations

import re

import pytest

from app.settings import ENV_PREFIX, REPO_ROOT, Settings

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
TABLE = README[README.index("## Settings") :]
TABLE = TABLE[: TABLE.index("\n## ", 3)]
DOCUMENTED = set(re.findall(r"^\| `(TOKENPRISM_[A-Z0-9_]+)` \|", TABLE, flags=re.M))


@pytest.mark.parametrize("field", sorted(Settings.model_fields))
def test_the_setting_has_a_row_in_the_readme_table(field):
    assert f"{ENV_PREFIX}{field.upper()}" in DOCUMENTED


def test_the_table_names_no_setting_that_does_not_exist():
    assert DOCUMENTED <= {f"{ENV_PREFIX}{field.upper()}" for field in Settings.model_fields}

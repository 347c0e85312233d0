"""Where the front-end files installed by `make setup` are served from.

package.json pins their versions; `make setup` copies them into static/vendor/ with the
version in the file name, and this module derives the same names from package.json, so
the version is written in one place.
"""

from __future__ import annotations

import json
from functools import lru_cache

from app.settings import REPO_ROOT

STATIC_DIR = REPO_ROOT / "static"
TEMPLATES_DIR = REPO_ROOT / "templates"


@lru_cache(maxsize=1)
def vendor_versions() -> dict[str, str]:
    return json.loads((REPO_ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]


def htmx_path() -> str:
    """Path under /static of the pinned htmx build."""
    return f"vendor/htmx-{vendor_versions()['htmx.org']}.min.js"


def swagger_paths() -> tuple[str, str]:
    """Paths under /static of the pinned Swagger UI script and stylesheet."""
    version = vendor_versions()["swagger-ui-dist"]
    return f"vendor/swagger-ui-{version}/swagger-ui-bundle.js", f"vendor/swagger-ui-{version}/swagger-ui.css"


def missing_assets() -> list[str]:
    return [path for path in (htmx_path(), *swagger_paths()) if not (STATIC_DIR / path).is_file()]

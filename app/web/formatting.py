"""The one number formatter of the pages, and the Jinja environment's filters.

`num` writes whole numbers with thousands separators (44,895), the same on every page;
`install_filters` registers it on the templates.
"""

from __future__ import annotations

from fastapi.templating import Jinja2Templates


def num(value: int) -> str:
    return f"{value:,}"


def install_filters(templates: Jinja2Templates) -> None:
    templates.env.filters["num"] = num

"""The one number formatter of the pages, and the Jinja environment's filters.

`num` (number.py) writes whole numbers with thousands separators (44,895), the same on every page.
`visible` shows a user's text (a name, a role, a query, a notice) the way token text is
shown: escaped, with control, zero-width and bidi characters as visible `\\u202e`-style
escapes (text_escapes.render_text), so a right-to-left override cannot reorder the page.
`usd` and `percent` (app/pricing/money.py, the one money formatter) show a budget's exact sums
and context share rounded for reading. `install_filters` registers them all on the templates,
and the global `chat_format_names` (the chat formats' names, from app/chat/render.py).
"""

from __future__ import annotations

from fastapi.templating import Jinja2Templates

from app.chat.render import FORMATS
from app.pricing.money import percent, usd
from app.web.markup.number import num
from app.web.markup.text_escapes import render_text


def install_filters(templates: Jinja2Templates) -> None:
    templates.env.filters["num"] = num
    templates.env.filters["visible"] = render_text
    templates.env.filters["usd"] = usd
    templates.env.filters["percent"] = percent
    templates.env.globals["chat_format_names"] = ", ".join(FORMATS)

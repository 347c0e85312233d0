"""The one number formatter of the pages (`num`: 44,895), below the token view and the
templates' filters (formatting.py), which both use it. Left out: money (app/pricing/money.py).
"""

from __future__ import annotations


def num(value: int) -> str:
    return f"{value:,}"

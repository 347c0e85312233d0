"""Sharing a view on the web: routes.py (/api/share, /share, /s/{id}) and state.py (a page
state as a share). The store is app/shares."""

from app.web.share.routes import router

__all__ = ["router"]

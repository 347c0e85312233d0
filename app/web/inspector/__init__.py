"""The token inspector and vocabulary browser on the web: routes.py (API and pages),
schemas.py (the JSON models), views.py (what the pages draw). The engine is app/inspect."""

from app.web.inspector.routes import router

__all__ = ["router"]

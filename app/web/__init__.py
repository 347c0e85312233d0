"""The web layer: HTML pages (htmx) and the JSON API, both thin over the engine."""

"""A chat message as every chat path takes it (API, CLI, pages, formats): role, content and
an optional name, all plain text. Which roles and names are allowed is each format's call
(app/chat/render.py); content arrays, images and tool calls are not messages here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str
    name: str | None = None

    def fields(self) -> list[str]:
        """Its text fields: role, content, then the name if it has one (what the size limits count)."""
        return [self.role, self.content] + ([self.name] if self.name is not None else [])

"""FastAPI dependencies: the settings and the registry, as `Annotated` aliases.

Tests swap either through `app.dependency_overrides[get_settings]` /
`[get_registry]`, or by passing their own to `create_app`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.settings import Settings
from app.tokenizers.registry import Registry


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_registry(request: Request) -> Registry:
    return request.app.state.registry


SettingsDep = Annotated[Settings, Depends(get_settings)]
RegistryDep = Annotated[Registry, Depends(get_registry)]

"""The HTML pages. To be filled in."""

from fastapi import APIRouter

router = APIRouter()

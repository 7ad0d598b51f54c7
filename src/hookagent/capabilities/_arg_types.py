"""Argument types shared by the model tools of several capabilities."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

__all__ = ["NonBlank"]


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be empty")
    return text


NonBlank = Annotated[str, AfterValidator(_not_blank)]
"""A string with at least one non-space character (a validation error names the field)."""

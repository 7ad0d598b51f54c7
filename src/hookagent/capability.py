"""A capability is a hook provider: tools plus hooks, installed together by `with_`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from hookagent.hooks.hook import Hook
from hookagent.tools.base import Tool

__all__ = ["Capability"]


@runtime_checkable
class Capability(Protocol):
    @property
    def name(self) -> str:
        """Shown as the source of its tools and hooks in records and errors."""
        ...

    def tools(self) -> Iterable[Tool]: ...

    def hooks(self) -> Iterable[Hook[Any]]: ...

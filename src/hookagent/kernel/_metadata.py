"""Typed keys into a run's metadata, so hooks and tools agree on names and types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast, final

from hookagent.hooks._result import HookResult
from hookagent.kernel._view import RunView

__all__ = ["MetadataKey"]

T = TypeVar("T")


@final
@dataclass(frozen=True)  # no slots: `MetadataKey[int](...)` sets __orig_class__
class MetadataKey(Generic[T]):
    """`TASKS = MetadataKey[list[str]]("tasks", default=[])`, then `TASKS.get(event.run)`."""

    name: str
    default: T | None = None

    def get(self, run: RunView) -> T | None:
        return cast(T | None, run.metadata.get(self.name, self.default))

    def set(self, value: T) -> HookResult:
        """A hook result that stores `value` under this key (recorded like any change)."""
        return HookResult.modify(metadata={self.name: value})

    def __call__(self, value: T) -> dict[str, Any]:
        """`{name: value}`, for `run(..., metadata=...)`."""
        return {self.name: value}

"""`@hook`: mark methods of a capability as hooks; `HookProvider` collects them.

The decorator only records where and how the method should run. `HookProvider.hooks()` binds
each marked method to its instance and builds the `Hook` with the capability's name as
source, so a capability class reads as a list of small, labelled methods.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any, Final, TypeVar, Unpack

from hookagent.hooks._hook import Hook, HookOptions, make_hook
from hookagent.hooks._points import HookPoint
from hookagent.tools._base import Tool

__all__ = ["HookProvider", "hook"]

F = TypeVar("F", bound=Callable[..., Any])
_MARK: Final = "__hookagent_hooks__"


def hook(point: HookPoint[Any], **options: Unpack[HookOptions]) -> Callable[[F], F]:
    """Mark a method as a hook at `point`; `options` are those of `make_hook`."""

    def mark(fn: F) -> F:
        marks: list[tuple[HookPoint[Any], HookOptions]] = getattr(fn, _MARK, [])
        marks.append((point, options))
        setattr(fn, _MARK, marks)
        return fn

    return mark


class HookProvider:
    """Base for capabilities: `hooks()` yields every `@hook` method, `tools()` nothing.

    Subclasses set `name` and override `tools()` when they bring tools.
    """

    name: str = "capability"

    def tools(self) -> Iterable[Tool]:
        return ()

    def hooks(self) -> Iterable[Hook[Any]]:
        for attr, member in inspect.getmembers(type(self)):
            for point, options in getattr(member, _MARK, ()):
                bound = getattr(self, attr)
                yield make_hook(point, bound, **{"name": attr, "source": self.name, **options})

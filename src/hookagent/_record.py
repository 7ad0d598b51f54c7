"""`record`: the one way hookagent declares a value type.

Hooks, points, results, events and stored rows are built once and read many times, so each
is final, frozen, slotted and keyword-only. Spelling that out above every class put the same
two lines in front of ninety classes; `record` says it once, and type checkers read it as the
dataclass it makes (`dataclass_transform`). Python's `@final` is only seen by a type checker
when written on the class itself, so `record` enforces it at run time instead: subclassing a
record raises `TypeError` when the subclass is defined. A value type that callers may also
make by position (`TextDelta(step, text)`) is `record(kw_only=False)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar, final, overload

from typing_extensions import dataclass_transform

__all__ = ["record"]

T = TypeVar("T")


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, kw_only: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(field,))
def record(
    cls: type[T] | None = None, /, *, kw_only: bool = True
) -> type[T] | Callable[[type[T]], type[T]]:
    """`cls` as a final, frozen, slotted, keyword-only dataclass (with `kw_only=False`, its
    fields are also taken by position)."""
    if cls is None:
        return lambda later: _made(later, kw_only=kw_only)
    return _made(cls, kw_only=kw_only)


def _made(cls: type[T], *, kw_only: bool) -> type[T]:
    made: type[T] = final(dataclass(frozen=True, slots=True, kw_only=kw_only)(cls))

    def refuse(sub: type[Any], /, **_: Any) -> NoReturn:
        raise TypeError(
            f"{made.__qualname__} is a record and cannot be subclassed ({sub.__qualname__})"
        )

    made.__init_subclass__ = classmethod(refuse)  # type: ignore[assignment,method-assign]
    return made

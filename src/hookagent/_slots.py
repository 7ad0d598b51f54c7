"""`filler`: a frozen dataclass built through its slots, for objects made on every step.

A frozen dataclass's `__init__` takes keywords and sets each field with `object.__setattr__`:
about 0.1 µs a field, twice what setting the slots directly costs. The kernel makes a few
such objects per step (the model request, each tool result message), so it builds them with
a function made here once per class, which takes the values positionally and sets the slots.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["filler"]

T = TypeVar("T")


def filler(cls: type[T], names: tuple[str, ...], fixed: Mapping[str, Any]) -> Callable[..., T]:
    """`fill(*values)`: a `cls` whose fields `names` take `values` in order and the others
    `fixed`'s values. Every field must be in one or the other, and `cls` must have no
    `__post_init__`: the object equals the one `cls(**fields)` builds, and a field added to
    `cls` later fails here, at import, rather than leaving a slot unset."""
    fields = {field.name for field in dataclasses.fields(cls)}  # type: ignore[arg-type]
    given = [*names, *fixed]
    if sorted(given) != sorted(fields) or hasattr(cls, "__post_init__"):
        raise TypeError(f"filler({cls.__name__}): fields {sorted(fields)}, given {given}")
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def fill({', '.join(names)}):", "    obj = _new(_cls)"]
    for index, name in enumerate(given):
        scope[f"_set{index}"] = getattr(cls, name).__set__
        value = name if index < len(names) else f"_fixed{index}"
        if index >= len(names):
            scope[value] = fixed[name]
        lines.append(f"    _set{index}(obj, {value})")
    lines.append("    return obj")
    exec("\n".join(lines), scope)  # as dataclasses builds __init__
    fill: Callable[..., T] = scope["fill"]
    fill.__qualname__ = fill.__name__ = f"fill_{cls.__name__}"
    return fill

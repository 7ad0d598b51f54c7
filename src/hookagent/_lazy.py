"""Names a package exports without importing them until first use (PEP 562), so that
importing the package, or reading a light part of it, does not load what it re-exports."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

__all__ = ["attribute_loader"]


def attribute_loader(
    package: str, homes: Mapping[str, str], namespace: MutableMapping[str, Any]
) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: `homes` maps each lazy name to the module that
    defines it; a name once loaded is stored in `namespace` (the package's globals), so the
    next access is a plain lookup."""

    def load(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    return load

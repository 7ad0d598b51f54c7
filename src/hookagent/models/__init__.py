"""Model drivers: the `Model` protocol and the resolution of `provider:model` names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent._lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.models._prices import PRICES, Price
    from hookagent.models._resolve import resolve_model

_HOME = {
    "Price": "hookagent.models._prices",
    "PRICES": "hookagent.models._prices",
    "resolve_model": "hookagent.models._resolve",
}

__all__ = [
    "PRICES",
    "Price",
    "resolve_model",
]

__getattr__ = attribute_loader(__name__, _HOME, globals())

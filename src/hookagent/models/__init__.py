"""Model drivers: the `Model` protocol and the resolution of `provider:model` names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent.lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.models.prices import PRICES, Price
    from hookagent.models.resolve import resolve_model

_HOME = {
    "Price": "hookagent.models.prices",
    "PRICES": "hookagent.models.prices",
    "resolve_model": "hookagent.models.resolve",
}

__all__ = [
    "PRICES",
    "Price",
    "resolve_model",
]

__getattr__ = attribute_loader(__name__, _HOME, globals())

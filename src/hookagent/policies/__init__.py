"""Limits and the error policy: ordinary policy-tier hooks the builder installs by default."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent.lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.policies.cost import COST_USD, CostLimit

_HOME = {
    "COST_USD": "hookagent.policies.cost",
    "CostLimit": "hookagent.policies.cost",
}

__all__ = [
    "COST_USD",
    "CostLimit",
]

__getattr__ = attribute_loader(__name__, _HOME, globals())

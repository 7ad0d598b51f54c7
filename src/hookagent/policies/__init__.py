"""Limits and the error policy: ordinary policy-tier hooks the builder installs by default."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent._lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.policies._cost import COST_USD, CostLimit

_HOME = {"COST_USD": "hookagent.policies._cost", "CostLimit": "hookagent.policies._cost"}

__all__ = ["COST_USD", "CostLimit"]

__getattr__ = attribute_loader(__name__, _HOME, globals())

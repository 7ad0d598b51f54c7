"""`StandIn`: the base of a model that stands in for another on a run's path."""

from __future__ import annotations

from typing import Any

from hookagent.models._base import Model

__all__ = ["StandIn"]


class StandIn:
    """Has `model`'s name, and reads its other traits (`accepts_images`, …) through, so that
    whatever asks the stand-in about the model it serves gets the model's own answer."""

    def __init__(self, model: Model) -> None:
        self._model = model
        self.name = model.name

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

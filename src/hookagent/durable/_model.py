"""`JournaledModel`: a model whose replies (and failures) a resumed run reads back from the
journal instead of asking again."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import final

from hookagent.durable import _codec as codec
from hookagent.durable import _errors as errors
from hookagent.durable._seam import Journal
from hookagent.models._base import Model, ModelRequest, ModelResponse, OnDelta, StreamingModel
from hookagent.models._received import received
from hookagent.models._stand_in import StandIn

__all__ = ["JournaledModel"]


@final
class JournaledModel(StandIn):
    """Stands in for `model`, with every reply journaled. Its `stream` falls back to a
    whole reply for a model that does not stream."""

    def __init__(self, model: Model, journal: Journal) -> None:
        super().__init__(model)
        self._journal = journal

    async def request(self, request: ModelRequest, /) -> ModelResponse:
        return await self._journaled(request, lambda: self._model.request(request))

    async def stream(self, request: ModelRequest, on_delta: OnDelta, /) -> ModelResponse:
        model = self._model
        if isinstance(model, StreamingModel):
            return await self._journaled(request, lambda: model.stream(request, on_delta))
        return await self.request(request)

    async def _journaled(
        self, request: ModelRequest, ask: Callable[[], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        journal = self._journal
        key = journal.key("model", request.step, None)
        entry = journal.find(key)
        if entry is not None:
            if entry.kind == "model_error":
                raise errors.load(entry.data)
            response: ModelResponse = codec.load("response", entry.data)
            return response
        try:
            response = received(await ask())  # as the run keeps it
        except Exception as exc:
            journal.record(key, "model_error", errors.dump(exc))
            raise
        journal.record(key, "model", codec.dump("response", response))
        return response

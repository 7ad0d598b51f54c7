"""`DurableLayer`: a run's journal wrapped around the kernel's seams (`kernel.seams`).

The kernel runs the same code with or without it. With it:

- each **fold** runs once per segment: its outcome is journaled before anything acts on it,
  and a segment run again takes it from the journal instead of calling the hooks (but for
  the observers of this process's view of the run, `Hook.replayed`, which see it again);
- each **question** a fold asks is answered from the journal, from an answer someone gave
  already, by permission_request hooks, or by the approver; with no approver the run
  **pauses** (`Suspended`) until someone answers;
- each **model call** is journaled (reply or failure) by `JournaledModel`;
- each **tool call** is journaled as planned, approved, started and done (`JournaledCalls`):
  exactly once, or in doubt;
- each **turn** begins with a checkpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, final

from hookagent.durable import _codec as codec
from hookagent.durable import _folds as folds
from hookagent.durable._calls import JournaledCalls
from hookagent.durable._model import JournaledModel
from hookagent.durable._replaced import bound_replaced
from hookagent.durable._seam import Journal
from hookagent.hooks._engine import Folded, fold
from hookagent.hooks._hook import Hook
from hookagent.hooks._points import AFTER_TOOL, HookPoint
from hookagent.hooks._result import HookResult
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._approval import Answer, Question
from hookagent.kernel._seams import Asking
from hookagent.kernel._state import RunState
from hookagent.models._base import Model
from hookagent.spill._results import ToolOutputs
from hookagent.tools._base import Tool

__all__ = ["DurableLayer"]


@final
class DurableLayer:
    """The seams of one run, journaled in `journal`."""

    __slots__ = ("_fold_keys", "_outputs", "_state", "calls", "journal")

    def __init__(
        self, journal: Journal, state: RunState, outputs: ToolOutputs | None = None
    ) -> None:
        self.journal = journal
        self._state = state
        self._outputs = outputs
        """Bounds a result an after_tool hook put in place before its fold is journaled."""
        self.calls = JournaledCalls(journal)
        self._fold_keys: dict[str, str] = {}
        """Per place (point, step, call), the key of the last fold there: its questions'
        keys follow from it."""

    @property
    def mid_run(self) -> bool:
        """Whether the run is taken up past its start (at a turn, or at its end)."""
        return self.journal.segment != 0

    def model(self, model: Model, /) -> Model:
        return JournaledModel(model, self.journal)

    def tools(self, tools: Mapping[str, Tool], /) -> Mapping[str, Tool]:
        return tools  # they run here, exactly once through `calls`

    spills_here = True

    async def fold(
        self,
        point: HookPoint[Any],
        hooks: tuple[Hook[Any], ...],
        event: Any,
        watch: HookWatch | None,
    ) -> Folded[Any] | HookResult | None:
        """The fold's outcome from the journal when this segment already ran it (the
        `replayed` observers then see it, as they would see it run); otherwise the hooks
        run, and the outcome is journaled before anything acts on it."""
        journal = self.journal
        call_id = point.call_field(event, "call_id")
        key = journal.key(point.name, self._state.position.step, call_id)
        self._fold_keys[_place(point.name, self._state.position.step, call_id)] = key
        entry = journal.find(key)
        if entry is not None:
            replayed = folds.decode(event, entry.data)
            watching = tuple(hook for hook in hooks if hook.replayed)
            if watching:
                seen = replayed.event if isinstance(replayed, Folded) else event
                await fold(point, watching, seen, watch)
            return replayed
        folded = await fold(point, hooks, event, watch)
        if point is AFTER_TOOL and self._outputs is not None and isinstance(folded, Folded):
            await bound_replaced(self._outputs, self._state.run_id, event, folded)
        journal.record(key, "fold", folds.encode(point, event, folded))
        return folded

    async def settle(self, question: Question, index: int, asking: Asking) -> Answer:
        journal = self.journal
        place = _place(question.point, question.step, question.call_id)
        key = f"{self._fold_keys[place]}:q{index}"
        entry = journal.find(key)
        if entry is not None:
            answer: Answer = codec.load("answer", entry.data)
            return answer
        found = await journal.answer_for(question, key) or await asking.ask_hooks(question)
        if found is None:
            if not asking.has_approver:
                await journal.pause(question, key, self._state)
            found = await asking.ask_human(question)
        journal.record(key, "answer", codec.dump("answer", found))
        return found

    async def turn(self, state: RunState) -> None:
        await self.journal.checkpoint(state)


def _place(point: str, step: int, call_id: str | None) -> str:
    return f"{point}:{step}:{call_id or ''}"

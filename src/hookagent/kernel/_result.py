"""`RunResult`: what a finished run hands back, and its JSON form for the CLI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Generic, final, overload

from typing_extensions import TypeVar

from hookagent._record import record
from hookagent._usage import Usage
from hookagent.hooks._decision import Decision
from hookagent.hooks._points import HookPoint
from hookagent.kernel._records import StepRecord, ToolExecution
from hookagent.kernel._state import RunState, RunStatus
from hookagent.kernel._view import ListView

__all__ = ["DecisionLog", "OutputT", "RunResult", "StepLog"]

OutputT = TypeVar("OutputT", default=Any)


@final
class StepLog(ListView[StepRecord]):
    """The run's step records in order, read from its step table as they are asked for
    (holding a result keeps no record objects). Compares and slices like the tuple it was."""

    __slots__ = ()

    @overload
    def __getitem__(self, index: int) -> StepRecord: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[StepRecord, ...]: ...
    def __getitem__(self, index: int | slice) -> StepRecord | tuple[StepRecord, ...]:
        if isinstance(index, slice):
            return tuple(self._items[index])
        return self._items[index]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StepLog | tuple):
            return NotImplemented
        return len(self) == len(other) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))


@final
class DecisionLog(ListView[Decision]):
    """The run's decisions in order, with filters for the questions people ask."""

    __slots__ = ()

    def at(self, point: HookPoint[Any] | str) -> list[Decision]:
        name = point if isinstance(point, str) else point.name
        return [d for d in self._items if d.point == name]

    def by(self, hook: str) -> list[Decision]:
        """Decisions decided by a hook, by id (`source:name`) or bare name."""
        return [
            d
            for d in self._items
            if d.hook is not None and (d.hook == hook or d.hook.endswith(f":{hook}"))
        ]

    def notable(self) -> list[Decision]:
        """Every decision that did something: anything but a plain proceed."""
        return [d for d in self._items if d.outcome != "proceed" or any(v.error for v in d.votes)]


@record
class RunResult(Generic[OutputT]):
    """What a run did. `parsed` is the validated answer of a run asked for an `output_type`
    (None when there was none, or the model never gave a valid one).

    Check `status` before `output`: a run a limit or hook ended is `stopped`, with
    `stop_reason` (`steps_limit`, `token_limit`, `time_limit`, `cost_limit`, …) and
    `stop_message` saying why (`step limit reached (5 steps) …`), and its `output` may be
    None, as the model never gave a final answer. A run that answered on its last allowed
    step is `completed`. A failed run has `error`."""

    output: str | None
    status: RunStatus
    stop_reason: str
    stop_message: str | None
    usage: Usage
    steps: Sequence[StepRecord]
    decisions: DecisionLog
    error: str | None
    state: RunState
    parsed: OutputT | None = None

    @classmethod
    def of(cls, state: RunState) -> RunResult[Any]:
        """The result of `state`, filled through the slots (the frozen `__init__` costs
        twice as much, and every run makes one); equal to the constructor's."""
        result: RunResult[Any] = _new(cls)
        _OUTPUT(result, state.output)
        _STATUS(result, state.status)
        _STOP_REASON(
            result,
            state.stop_reason or ("waiting" if state.status == "waiting" else "completed"),
        )
        _STOP_MESSAGE(result, state.stop_message)
        _USAGE(result, state.usage)
        _STEPS(result, StepLog(state.steps))
        _DECISIONS(result, DecisionLog(state.decisions))
        _ERROR(result, state.error)
        _STATE(result, state)
        _PARSED(result, None)
        return result

    @property
    def run_id(self) -> str:
        return self.state.run_id

    @property
    def tool_calls(self) -> list[ToolExecution]:
        return [execution for step in self.steps for execution in step.executions]

    def to_dict(self) -> dict[str, Any]:
        """The shape `hookagent run --json` prints."""
        return {
            "run_id": self.run_id,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "stop_message": self.stop_message,
            "output": self.output,
            "parsed": self.state.metadata.get("structured_output"),
            "error": self.error,
            "steps": len(self.steps),
            "usage": {
                "input_tokens": self.usage.input_tokens,
                "output_tokens": self.usage.output_tokens,
                "cached_tokens": self.usage.cached_tokens,
                "requests": self.usage.requests,
            },
            "tool_calls": [
                {
                    "step": step.index,
                    "id": e.call_id,
                    "name": e.name,
                    "args": dict(e.args),
                    "result": e.result.content,
                    "is_error": e.result.is_error,
                    "blocked": e.blocked,
                    "attempts": e.attempts,
                }
                for step in self.steps
                for e in step.executions
            ],
            "decisions": [
                {
                    "point": d.point,
                    "step": d.step,
                    "call_id": d.call_id,
                    "decision": d.outcome,
                    "reason": d.reason,
                    "hook": d.hook,
                    "by": d.by,
                    "answer": d.answer,
                    "votes": [
                        {
                            "hook": v.hook,
                            "by": v.by,
                            "decision": v.decision,
                            "reason": v.reason,
                            "changes": dict(v.changes),
                            "error": v.error,
                        }
                        for v in d.votes
                    ],
                }
                for d in self.decisions
            ],
        }


_new: Final = object.__new__
(
    _OUTPUT,
    _STATUS,
    _STOP_REASON,
    _STOP_MESSAGE,
    _USAGE,
    _STEPS,
    _DECISIONS,
    _ERROR,
    _STATE,
    _PARSED,
) = (
    getattr(RunResult, name).__set__
    for name in (
        "output",
        "status",
        "stop_reason",
        "stop_message",
        "usage",
        "steps",
        "decisions",
        "error",
        "state",
        "parsed",
    )
)

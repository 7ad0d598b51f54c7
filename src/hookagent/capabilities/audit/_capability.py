"""`AuditTrail`: every fold, decision and tool call of every run, as a hash-chained JSONL file.

One audit-tier observer hook per point, registered with `always=True`: it runs last in each
fold, even after a block or a stop, and is handed the strongest result so far. It never
votes, so it changes no outcome, and a fold in which only it ran records no decision.

Two kinds of record (`type`):

- **`event`**, one per fold the hook sees: the point, the run, the step, the event's own
  fields (tool name, arguments and, at after_tool, the result; the prompt; the error…) and
  the outcome so far (`outcome`, `reason`, `stop_reason`). The tool calls are the after_tool
  events (a blocked call shows as a before_tool event with outcome `block`); the run's end
  is the execution_end event, with `status`, `stop_reason`, `stop_message` and `output`,
  then (for a run that is not a subagent's) the session_end event.
- **`decision`**, one per decision the run recorded, exactly as in `result.decisions`: the
  deciding hook, every vote, and for an `ask` the answer. A decision is settled after its
  fold (an ask is answered then), so it is written at the run's next fold, before that
  fold's event; `index` is its place in the run's decisions. (A decision taken at
  the run's last fold, session_end or execution_end, is not written.)

Every record also has `seq`, `ts` (Unix time), `run_id`, `agent_type`, `prev` and `hash`
(see `chain`). Subagents inherit the hook, so their runs go to the same file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any, Literal, final

from hookagent._errors import ConfigError, check_choice
from hookagent.capabilities.audit._chain import ChainWriter
from hookagent.capabilities.audit._describe import (
    describe_decision,
    describe_event,
    describe_outcome,
)
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import ALL_POINTS, EXECUTION_END, SESSION_END, HookPoint
from hookagent.hooks._result import HookResult
from hookagent.kernel._view import RunView
from hookagent.tools._base import Tool

__all__ = ["AuditTrail", "OnAuditFailure"]

OnAuditFailure = Literal["raise", "block", "proceed"]


@final
class AuditTrail:
    """Write what every run does to `path`, one hash-chained JSON record per line.

    Args:
        path: the JSONL file, created if missing and only ever appended to. Several runs,
            agents and processes may share it: each append takes an exclusive `flock`.
        points: the points whose folds are written (default: all). Decisions are written
            whatever their point, at the next audited fold of their run.
        fsync: `fsync` after every record (durable across a power cut; much slower).
        max_chars: strings longer than this (tool results, prompts, outputs) are cut, with
            the number of characters left out; None keeps them whole.
        on_failure: what a record that cannot be written does. `raise` (default): the run
            fails with a `HookError` naming the file. `block`: the action is refused, or the
            run stops where nothing can be refused. `proceed`: logged, and the run goes on
            unaudited.
    """

    name = "audit"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        points: Iterable[HookPoint[Any]] = ALL_POINTS,
        fsync: bool = False,
        max_chars: int | None = 10_000,
        on_failure: OnAuditFailure = "raise",
    ) -> None:
        chosen = tuple(points)
        for point in chosen:
            if not isinstance(point, HookPoint):
                raise ConfigError(
                    f"{point!r} is not a hook point (use e.g. hookagent.BEFORE_TOOL)",
                    key="AuditTrail(points)",
                    value=point,
                )
        if max_chars is not None and max_chars < 1:
            raise ConfigError(
                f"must be at least 1, or None, not {max_chars!r}",
                key="AuditTrail(max_chars)",
                value=max_chars,
            )
        check_choice(on_failure, ("raise", "block", "proceed"), key="AuditTrail(on_failure)")
        self.path = os.fspath(path)
        self.points = tuple(dict.fromkeys(chosen))
        self.max_chars = max_chars
        self.on_failure: OnAuditFailure = on_failure
        self._writer = ChainWriter(self.path, fsync=fsync)
        self._written: dict[str, int] = {}
        """Run id → how many of its decisions are written."""

    @property
    def head(self) -> str:
        """The hash of the last record this trail wrote (or read as the file's last): keep
        it elsewhere and pass it to `verify(path, head=...)` to detect lines cut off the end."""
        return self._writer.head

    def close(self) -> None:
        """Close the file (a later record reopens it)."""
        self._writer.close()

    # -- capability -------------------------------------------------------------------
    def tools(self) -> Iterable[Tool]:
        return ()

    def hooks(self) -> Iterable[Hook[Any]]:
        for point in self.points:
            yield make_hook(
                point,
                self._hook_at(point.name),
                name="trail",
                source=self.name,
                tier="audit",
                kind="observer",
                always=True,
                timeout=None,  # a sync hook: it cannot be interrupted anyway
                on_failure=self.on_failure,
            )

    def _hook_at(self, point: str) -> Callable[[Any, HookResult], None]:
        see = self._see

        def trail(event: Any, outcome: HookResult) -> None:  # 2 args: handed the outcome
            see(point, event, outcome)

        return trail

    # -- records ----------------------------------------------------------------------
    def _see(self, point: str, event: Any, outcome: HookResult) -> None:
        run: RunView = event.run
        now = round(time.time(), 6)
        self._flush(run, now)
        body = self._base("event", run, now)
        body["point"] = point
        body["step"] = getattr(event, "step", None)
        body.update(describe_outcome(outcome))
        body.update(describe_event(event, self.max_chars))
        self._writer.append(body)
        if point == self._last_point(run):
            self._written.pop(run.run_id, None)

    def _last_point(self, run: RunView) -> str:
        """The run's last fold this trail sees: session_end, for a run that opens a
        session, when the trail watches it; else execution_end."""
        if run.parent_run_id is None and SESSION_END in self.points:
            return SESSION_END.name
        return EXECUTION_END.name

    def _flush(self, run: RunView, now: float) -> None:
        """Write the decisions `run` recorded since this trail last wrote one of them."""
        decisions = run.decisions
        done = self._written.get(run.run_id, 0)
        if done >= len(decisions):
            return
        for index in range(done, len(decisions)):
            body = self._base("decision", run, now)
            body["index"] = index
            body.update(describe_decision(decisions[index], self.max_chars))
            self._writer.append(body)
            self._written[run.run_id] = index + 1

    @staticmethod
    def _base(kind: str, run: RunView, now: float) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": kind,
            "ts": now,
            "run_id": run.run_id,
            "agent_type": run.agent_type,
        }
        if run.parent_run_id is not None:
            body["parent_run_id"] = run.parent_run_id
        if run.session_id is not None:
            body["session_id"] = run.session_id
        return body

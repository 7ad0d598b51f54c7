"""`Durable`: a run's link to its store while it executes.

A run is cut into **segments**: segment 0 is the start (execution_start, the prompt), then
one per turn of the loop (a step and the decision to go on). When a segment begins, the
state as it stands is made durable (a **checkpoint**: rows appended since the last one). Within
a segment, every effect is journaled under a key that the same code reaches again in the same
order: each fold's outcome, each model reply (or failure), each tool result, each answer.

A resumed run loads the state at its last checkpoint and runs that segment again; each effect
found in the journal is taken from it instead of being redone. Journal entries are buffered
and written at **barriers**: before a tool starts (its `started` state must be durable before
the side effect), after it ends, when the run pauses, and when it ends. A checkpoint is not a
barrier of its own: it is written by the next one, in the same transaction, which saves one
write per turn, a third of a durable step's cost. So what ran after the last barrier (the
folds and the model call since, never a tool) runs again after a crash; a tool that started
is in doubt, never run twice.

Every barrier is fenced: its flush names the worker and the lease epoch it claimed, and the
store refuses it once the run was claimed again (`LeaseLost`). A barrier that goes through
extends the lease, so a run renews its lease at every barrier, not only from the background
task that may be starved. Once the lease is known lost, every barrier fails at once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any, Final, NoReturn, final

from hookagent._canonical import call_key
from hookagent._errors import LeaseLost
from hookagent.durable import _answers as answers
from hookagent.durable import _codec as codec
from hookagent.durable._seam import Suspended
from hookagent.kernel._approval import Answer, Question
from hookagent.kernel._state import RunState
from hookagent.store._base import RunRows, Store
from hookagent.store._records import (
    CallRecord,
    CallState,
    Checkpoint,
    Flush,
    JournalEntry,
    QuestionRecord,
    RunRecord,
    RunStatus,
)

__all__ = ["Durable", "scalars_of"]


@final
class Durable:
    """The `Journal` of a run kept in a `Store`."""

    def __init__(
        self, store: Store, run: RunRecord, *, lease: float, rows: RunRows | None = None
    ) -> None:
        """`run` as its lease holder claimed it; `rows`, the run as stored when it is taken
        up again past its start."""
        self.store = store
        self.worker = run.lease_owner or ""
        """Who holds the run's lease while it executes."""
        self.epoch = run.lease_epoch
        """The lease epoch `worker` claimed: every flush is fenced on it."""
        self.lease = lease
        """Seconds each flush extends the lease by."""
        self.lost = False
        """Set once the lease is known to be someone else's: no barrier writes after."""
        self._holder: str | None = None
        self.run_id = run.id
        self.session_id = run.session_id
        self.policy_version = run.policy_version
        point = rows.run.checkpoint if rows is not None else None
        point = point or Checkpoint(segment=0, messages=0, steps=0, decisions=0)
        self.segment = point.segment
        replay, calls = (rows.journal, rows.calls) if rows is not None else ((), ())
        self.recorded: dict[str, JournalEntry] = {e.key: e for e in replay}
        """Entries of the segment being replayed; empty once the run is past them."""
        self.calls: dict[str, CallRecord] = {c.call_id: c for c in calls}
        self.doubtful: set[str] = {c.call_id for c in calls if c.state == "started"}
        """Calls a stopped process had started without recording their end."""
        self._buffer: list[JournalEntry] = []
        self._dirty: dict[str, CallRecord] = {}
        self._questions: list[QuestionRecord] = []
        self._counts: dict[str, int] = {}
        self._pending: Checkpoint | None = None
        """A checkpoint taken but not yet written: the next barrier writes it."""
        self._scalars: str | None = None
        """The scalars the last flush wrote: a barrier within a segment writes them again."""
        self._approved: dict[str, tuple[Mapping[str, Any], str]] = {}
        """Per call, the arguments it was approved with and their canonical JSON."""
        self._rows = (point.messages, point.steps, point.decisions)
        """How many messages, steps and decisions the store holds already."""

    # -- keys and entries ---------------------------------------------------------------
    def key(self, what: str, step: int, call_id: str | None) -> str:
        """The next key for `what` at this place; the same code path reaches the same keys in
        the same order when the segment runs again."""
        base = f"{what}:{step}:{call_id or ''}"
        n = self._counts.get(base, 0)
        self._counts[base] = n + 1
        return f"{base}:{n}"

    def find(self, key: str) -> JournalEntry | None:
        return self.recorded.get(key)

    def record(self, key: str, kind: str, data: str) -> None:
        self._buffer.append(JournalEntry(segment=self.segment, key=key, kind=kind, data=data))

    # -- the tool-call journal -----------------------------------------------------------
    def call(
        self, call_id: str, step: int, name: str, args: Mapping[str, Any], state: CallState
    ) -> CallRecord:
        approved = self._approved.pop(call_id, None) if state == "started" else None
        if approved is not None and approved[0] is args:
            canonical = approved[1]  # approved an instant ago, with these very arguments
        else:
            canonical = codec.canonical(dict(args))
        if state == "approved":
            self._approved[call_id] = (args, canonical)
        record = self.calls.get(call_id)
        if (
            state in ("planned", "approved")
            and record is not None
            and record.state not in ("planned", "approved")
        ):
            return record  # a resumed segment passing the call again: its state stands
        if record is None or record.args != canonical:
            key = call_key(self.run_id, call_id, canonical)
            record = CallRecord(
                call_id=call_id,
                step=step,
                name=name,
                args=canonical,
                idempotency_key=key,
                state=state,
            )
        record.state, record.updated_at = state, time.time()
        self.calls[call_id] = self._dirty[call_id] = record
        return record

    def finish_call(self, call_id: str, state: CallState, result: str) -> None:
        record = self.calls[call_id]
        record.state, record.result, record.updated_at = state, result, time.time()
        self._dirty[call_id] = record

    # -- questions -----------------------------------------------------------------------
    async def answer_for(self, question: Question, key: str) -> Answer | None:
        return await answers.existing(self, question, key)

    async def pause(self, question: Question, key: str, state: RunState) -> NoReturn:
        record = answers.waiting(self, question, key)
        self._questions.append(record)
        state.status = "waiting"
        await self._write(self._flush(state, "waiting", None, fresh=True))
        raise Suspended(record)

    # -- barriers ------------------------------------------------------------------------
    def lose(self, holder: str | None) -> None:
        """The lease went to `holder`: every barrier fails from now on, writing nothing."""
        self.lost, self._holder = True, holder

    async def _write(self, flush: Flush) -> None:
        if self.lost:
            raise LeaseLost(
                self.run_id, worker=self.worker, holder=self._holder, where=self.store.url
            )
        try:
            await self.store.flush(flush)
        except LeaseLost as exc:
            self.lose(exc.holder)
            raise

    async def barrier(self, state: RunState, status: RunStatus = "running") -> None:
        await self._write(self._flush(state, status, None))

    async def begin(self, state: RunState, status: RunStatus = "running") -> None:
        """A new run: its initial state (a continued session's conversation) is segment 0."""
        point = Checkpoint(
            segment=0,
            messages=len(state.messages),
            steps=len(state.steps),
            decisions=len(state.decisions),
            scalars=scalars_of(state, 0),
        )
        await self._write(self._flush(state, status, point))

    async def checkpoint(self, state: RunState) -> None:
        """A segment begins: the state as it stands is its start, written by the next
        barrier; the journal starts afresh."""
        self.segment += 1
        self._counts.clear()
        self.recorded = {}
        # Entries of the segment before that no barrier wrote: once this checkpoint is
        # written they are void, and until then a resumed run redoes that segment anyway.
        self._buffer = [e for e in self._buffer if e.segment >= self.segment]
        self._pending = Checkpoint(
            segment=self.segment,
            messages=len(state.messages),
            steps=len(state.steps),
            decisions=len(state.decisions),
            scalars=scalars_of(state, self.segment),
        )

    async def close(self, state: RunState) -> None:
        """The run ended (or paused): write what is left, with its final status."""
        status: RunStatus = state.status if state.status != "running" else "running"
        await self._write(self._flush(state, status, None, fresh=True))

    def _flush(
        self, state: RunState, status: RunStatus, point: Checkpoint | None, *, fresh: bool = False
    ) -> Flush:
        """What the next write holds. The run's scalars are written fresh when a segment
        begins, the run pauses or ends, or its status changes; a barrier within a segment
        writes them as they were then (they only say how far the run got: a resumed run
        reads its checkpoint's)."""
        point, self._pending = point or self._pending, None
        if point is not None and not fresh:
            scalars = point.scalars
        elif fresh or status != "running" or self._scalars is None:
            scalars = scalars_of(state, self.segment)
        else:
            scalars = self._scalars
        self._scalars = scalars
        messages, steps, decisions = self._rows
        flush = Flush(
            run_id=self.run_id,
            status=status,
            scalars=scalars,
            at=time.time(),
            worker=self.worker or None,
            epoch=self.epoch,
            lease=self.lease,
            messages=[
                (i, codec.dump("message", m))
                for i, m in enumerate(state.messages[messages:], messages)
            ],
            steps=[(i, codec.dump("step", state.steps[i])) for i in range(steps, len(state.steps))],
            decisions=[
                (i, codec.dump("decision", d))
                for i, d in enumerate(state.decisions[decisions:], decisions)
            ],
            journal=self._buffer,
            calls=list(self._dirty.values()),
            checkpoint=point,
            questions=self._questions,
        )
        self._rows = (len(state.messages), len(state.steps), len(state.decisions))
        self._buffer, self._dirty, self._questions = [], {}, []
        return flush


def scalars_of(state: RunState, segment: int) -> str:
    """The small part of the state, as JSON: rewritten at every flush."""
    position = state.position
    return _SCALARS.encode(
        {
            "status": state.status,
            "parent_run_id": state.parent_run_id,
            "session_id": state.session_id,
            "usage": {
                "input_tokens": state.usage.input_tokens,
                "output_tokens": state.usage.output_tokens,
                "cached_tokens": state.usage.cached_tokens,
                "requests": state.usage.requests,
            },
            "metadata": state.metadata,
            "output": state.output,
            "stop_reason": state.stop_reason,
            "stop_message": state.stop_message,
            "error": state.error,
            "started_at": state.started_at,
            "elapsed": state.elapsed,
            "position": {
                "phase": position.phase,
                "step": position.step,
                "call_id": position.call_id,
            },
            "stop_block_streak": state.stop_block_streak,
            "segment": segment,
        }
    )


_SCALARS: Final = json.JSONEncoder(default=repr)
"""`json.dumps(..., default=repr)`, without building an encoder at every flush."""

"""`Journal`: what a backend that keeps runs provides to the durable layer.

The durable layer (`durable.layer`) wraps the kernel's seams and talks to a run's journal
through this protocol only: entries under keys that the same code reaches again in the same
order, the state of each tool call, barriers before and after external effects, checkpoints
at turn boundaries, and questions that may pause the run. `Durable` implements it over a
`Store` (SQLite, PostgreSQL, memory); another engine implements the same protocol and runs
the same contract tests.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableSet
from typing import Any, NoReturn, Protocol

from hookagent.kernel._approval import Answer, Question
from hookagent.kernel._state import RunState
from hookagent.store._records import CallRecord, CallState, JournalEntry, QuestionRecord, RunStatus

__all__ = ["Journal", "Suspended"]


class Suspended(BaseException):
    """Unwinds a run that paused for an answer. A BaseException, so that no `except
    Exception` on the way (the error policy) mistakes it for a failure."""

    def __init__(self, question: QuestionRecord) -> None:
        super().__init__(question.id)
        self.question = question


class Journal(Protocol):
    """A run's journal while it executes (one segment at a time)."""

    @property
    def segment(self) -> int:
        """The segment being run: 0 is the start, then one per turn of the loop."""
        ...

    @property
    def calls(self) -> Mapping[str, CallRecord]:
        """Every tool call the journal knows of, by call id."""
        ...

    @property
    def doubtful(self) -> MutableSet[str]:
        """Calls a stopped process started without recording their end; the layer takes
        each out as it settles it."""
        ...

    def key(self, what: str, step: int, call_id: str | None) -> str:
        """The next key for `what` at this place in the segment."""
        ...

    def find(self, key: str) -> JournalEntry | None:
        """The entry this segment recorded under `key` when it ran before."""
        ...

    def record(self, key: str, kind: str, data: str) -> None:
        """Keep an entry; it is durable at the next barrier."""
        ...

    def call(
        self, call_id: str, step: int, name: str, args: Mapping[str, Any], state: CallState
    ) -> CallRecord:
        """Move a tool call to `state` (planned, approved, started, in_doubt)."""
        ...

    def finish_call(self, call_id: str, state: CallState, result: str) -> None:
        """A tool call ended (`done` or `failed`) with this result."""
        ...

    async def barrier(self, state: RunState, status: RunStatus = "running") -> None:
        """Make everything kept so far durable, before (or after) an external effect."""
        ...

    async def checkpoint(self, state: RunState) -> None:
        """A new segment begins with the state as it stands."""
        ...

    async def close(self, state: RunState) -> None:
        """The run ended or paused: make the rest durable with its final status."""
        ...

    async def answer_for(self, question: Question, key: str) -> Answer | None:
        """An answer given already: to this question, or an approval whose scope covers it.
        Raises `Suspended` while the question waits for someone."""
        ...

    async def pause(self, question: Question, key: str, state: RunState) -> NoReturn:
        """Keep the question for someone to answer, and suspend the run."""
        ...

"""`StepTable`: a run's step records, kept as columns rather than objects.

A step's reply and its tool calls' ids, names, results and error flags are already in the
conversation, so a record object per step and per call (with its floats and ints) would keep
most of that a second time: several hundred bytes a step against the conversation's ~90.
The table keeps only what the conversation lacks, in flat arrays (times, attempts, flags,
where the step's messages are), and builds an equal `StepRecord` whenever one is read.
The kernel writes through `append_step` and `append_call` and never builds a record itself;
a watcher (`watch`) hears of each record as it is appended.

The table reads `RunState.messages`, which the runtime only ever appends to.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, Protocol, final, overload

from hookagent._messages import AssistantMessage, Message
from hookagent._usage import Usage
from hookagent.kernel._call_table import DATA_KEPT, CallTable, CallWatcher, moved
from hookagent.kernel._records import StepRecord, ToolExecution
from hookagent.kernel._step_packing import ERROR, FINAL_RESPONSE, KINDS, TOOL_EXECUTION, pack

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

__all__ = ["NO_USAGE", "StepTable", "StepWatcher"]

NO_USAGE: Final = Usage()
"""The usage of a step whose model call failed (shared: `Usage` is frozen)."""


class StepWatcher(CallWatcher, Protocol):
    """Hears of records as the kernel appends them (a live view of a run)."""

    def step_recorded(self, record: StepRecord, /) -> None: ...


@final
class StepTable(Sequence[StepRecord]):
    """Append-only; `table[i]` is step i+1's record, built on each read (equal records,
    not the same object). Call rows belong to steps in order: a step owns the rows added
    after the previous step closed, and its k-th row ran its reply's k-th tool call."""

    __slots__ = (
        "_calls",
        "_calls_end",
        "_duration",
        "_errors",
        "_kind",
        "_loose",
        "_messages",
        "_reply",
        "_scan",
        "_started",
        "_usage",
        "_watcher",
        "append_call",
    )

    def __init__(self, messages: list[Message] | None = None) -> None:
        self._messages: list[Message] = [] if messages is None else messages
        self._kind = bytearray()
        self._reply = array("i")
        """Index of the step's assistant message in the conversation; -1 if it has none."""
        self._usage: list[Usage] = []
        self._started = array("d")
        self._duration = array("d")
        self._calls_end = array("I")
        """How many call rows there were when the step closed."""
        self._errors: dict[int, tuple[str, ...]] = {}
        self._loose: dict[int, StepRecord] = {}
        """Records the columns cannot describe (built by hand), kept whole."""
        self._calls = CallTable()
        self.append_call = self._calls.record
        """A tool call of the step in progress (`CallTable.record`): the kernel's one write
        per call goes straight to the call rows."""
        self._scan = 0
        """Where `append` looks for the next record's messages."""
        self._watcher: StepWatcher | None = None

    @classmethod
    def over(cls, messages: list[Message], records: Iterable[StepRecord]) -> StepTable:
        """The table of `records` reading `messages`: `records` itself if it already is."""
        if isinstance(records, StepTable):
            if records._messages is messages:
                return records
            if not records and not len(records._calls):
                records._messages = messages
                return records
        table = cls(messages)
        for record in records:
            table.append(record)
        return table

    # -- the kernel's writes ----------------------------------------------------------
    def watch(self, watcher: StepWatcher | None) -> None:
        """Tell `watcher` of every call and step recorded from now on (None: stop)."""
        self._watcher = self._calls.watcher = watcher

    def append_step(
        self,
        index: int,
        at: int,
        usage: Usage,
        started: float,
        duration: float,
        calls: int,
        failure: str | None,
    ) -> None:
        """Close a step: its reply at `at` (-1, and why in `failure`, when the model call
        failed) owns the last `calls` call rows; rows added before those belong to no step
        (a batch cut short by an error) and are dropped."""
        rows = self._calls
        done = self._calls_end[-1] if self._calls_end else 0
        if len(rows.flags) - calls != done:  # (the column's length: no `__len__` frame)
            rows.drop(done, len(rows.flags) - calls)
        errors: tuple[str, ...] = ()
        if at < 0:
            kind, errors = ERROR, (failure or "",)
        else:
            if rows.errors:
                errors = rows.error_texts(self._messages, done, done + calls)
            reply = self._messages[at]
            if errors:
                kind = ERROR
            elif isinstance(reply, AssistantMessage) and reply.tool_calls:
                kind = TOOL_EXECUTION
            else:
                kind = FINAL_RESPONSE
        position = len(self._kind)
        self._add_step(kind, at, usage, started, duration, errors)
        if index != position + 1:  # not from the kernel, which numbers steps this way
            self._loose[position] = replace(self._record(position), index=index)
        if self._watcher is not None:
            self._watcher.step_recorded(self._record(position))

    def last_call_count(self) -> int:
        """How many tool calls the last step ran, without building its record."""
        steps = len(self._calls_end)
        if not steps:
            return 0
        if self._loose and steps - 1 in self._loose:
            return len(self._loose[steps - 1].executions)
        return self._calls_end[-1] - (self._calls_end[-2] if steps > 1 else 0)

    # -- records built by hand or loaded ----------------------------------------------
    def append(self, record: StepRecord) -> None:
        """Add a finished record: as columns when the conversation holds its messages in
        order after the previous record's, else kept whole. Either way `self[-1] == record`."""
        rows = self._calls
        done = self._calls_end[-1] if self._calls_end else 0
        if len(rows) != done:
            rows.drop(done, len(rows))
        packed = pack(record, len(self._kind) + 1, self._messages, self._scan)
        if packed is None:
            self._add_step(TOOL_EXECUTION, -1, record.usage, 0.0, 0.0, ())
            self._loose[len(self._kind) - 1] = record
            return
        at, self._scan, calls = packed
        for execution, (result_at, flags, args, data) in zip(record.executions, calls, strict=True):
            if args is not None:
                rows.args[len(rows)] = args
            if flags & DATA_KEPT:
                rows.data[len(rows)] = data
            rows.add(result_at, flags, execution.started_at, execution.duration, execution.attempts)
        kind = KINDS.index(record.kind)
        self._add_step(kind, at, record.usage, record.started_at, record.duration, record.errors)

    def _add_step(
        self,
        kind: int,
        at: int,
        usage: Usage,
        started: float,
        duration: float,
        errors: tuple[str, ...],
    ) -> None:
        if errors:
            self._errors[len(self._kind)] = errors
        self._kind.append(kind)
        self._reply.append(at)
        self._usage.append(usage)
        self._started.append(started)
        self._duration.append(duration)
        self._calls_end.append(len(self._calls.flags))
        self._calls.errors = 0

    # -- reading ----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._kind)

    @overload
    def __getitem__(self, index: int) -> StepRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[StepRecord]: ...
    def __getitem__(self, index: int | slice) -> StepRecord | list[StepRecord]:
        if isinstance(index, slice):
            return [self._record(i) for i in range(*index.indices(len(self._kind)))]
        steps = len(self._kind)
        position = index + steps if index < 0 else index
        if not 0 <= position < steps:
            raise IndexError("step index out of range")
        return self._record(position)

    def __iter__(self) -> Iterator[StepRecord]:
        for position in range(len(self._kind)):
            yield self._record(position)

    def __eq__(self, other: object) -> bool:
        """Equal to a table or list of equal records, as the list it replaced was."""
        if not isinstance(other, StepTable | list):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"StepTable(len={len(self._kind)})"

    def _record(self, position: int) -> StepRecord:
        if self._loose:
            loose = self._loose.get(position)
            if loose is not None:
                return loose
        at = self._reply[position]
        reply = None if at < 0 else self._messages[at]
        executions: tuple[ToolExecution, ...] = ()
        if reply is not None:
            if not isinstance(reply, AssistantMessage):
                raise moved(at)
            first = self._calls_end[position - 1] if position else 0
            messages, execution = self._messages, self._calls.execution
            executions = tuple(
                execution(messages, row, call)
                for row, call in zip(
                    range(first, self._calls_end[position]), reply.tool_calls, strict=False
                )
            )
        return StepRecord(
            index=position + 1,
            kind=KINDS[self._kind[position]],
            response=reply,
            executions=executions,
            usage=self._usage[position],
            started_at=self._started[position],
            duration=self._duration[position],
            errors=self._errors.get(position, ()),
        )

    # -- persistence ------------------------------------------------------------------
    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Stored as the list of records it replaced, so stored runs stay readable. Loading
        yields that list; `RunState.__post_init__` packs it against the loaded messages."""
        from pydantic_core import core_schema

        records = handler.generate_schema(list[StepRecord])
        return core_schema.no_info_after_validator_function(
            _loaded,
            records,
            serialization=core_schema.plain_serializer_function_ser_schema(
                list, return_schema=records
            ),
        )


def _loaded(records: list[StepRecord]) -> list[StepRecord]:
    """The records as read; the state they belong to turns them into its table."""
    return records

"""`CallTable`: one row per tool call, holding what its result message does not.

A call's id, name, result text and error flag are in its `ToolResultMessage`, and its
original arguments in the reply's `ToolCall`; a row adds only where that message is, times,
attempts and a flags byte. Arguments a hook rewrote, and result `data` that is neither None
nor the result text, are kept whole in sparse dicts by row.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, Protocol, final

from hookagent._messages import Message, ToolCall, ToolResultMessage
from hookagent.kernel._records import ToolExecution
from hookagent.tools._base import ToolResult

__all__ = [
    "ARGS_KEPT",
    "ARGS_PROXY",
    "BLOCKED",
    "DATA_IS_CONTENT",
    "DATA_KEPT",
    "CallTable",
    "CallWatcher",
    "moved",
]


class CallWatcher(Protocol):
    """Hears of each call as it is recorded (a live view of a run)."""

    def call_recorded(self, execution: ToolExecution, /) -> None: ...


# Bits of a row's flags byte.
BLOCKED: Final = 1
DATA_IS_CONTENT: Final = 2
"""The result's `data` is its content string (as `ToolResult.of` a string makes it)."""
DATA_KEPT: Final = 4
"""`data` is neither None nor the content: kept whole."""
ARGS_PROXY: Final = 8
"""The tool ran with a read-only proxy of the call's arguments (hooks looked, kept them)."""
ARGS_KEPT: Final = 16
"""Hooks rewrote the arguments: kept whole."""


@final
class CallTable:
    __slots__ = (
        "args",
        "attempts",
        "data",
        "duration",
        "errors",
        "flags",
        "result",
        "started",
        "watcher",
    )

    def __init__(self) -> None:
        self.result = array("i")
        """Index of the call's `ToolResultMessage` in the conversation."""
        self.flags = bytearray()
        self.started = array("d")
        self.duration = array("d")
        self.attempts = array("I")
        self.args: dict[int, Mapping[str, Any]] = {}
        self.data: dict[int, Any] = {}
        self.errors = 0
        """Error results among rows added since the owner last reset it (a hint to look)."""
        self.watcher: CallWatcher | None = None

    def __len__(self) -> int:
        return len(self.flags)

    def record(
        self,
        at: int,
        call: ToolCall,
        args: Mapping[str, Any],
        proxy: Mapping[str, Any] | None,
        result: ToolResult,
        blocked: bool,
        started: float,
        duration: float,
        attempts: int,
    ) -> None:
        """A call just made, its result message at `at`; `proxy` is the read-only view of
        `call.args` that hooks were shown, if any. The watcher hears of it as a record."""
        flags = BLOCKED if blocked else 0
        if args is not call.args:
            if args is proxy:
                flags |= ARGS_PROXY
            else:
                flags |= ARGS_KEPT
                self.args[len(self.flags)] = args
        data = result.data
        if data is not None:
            if data is result.content:
                flags |= DATA_IS_CONTENT
            else:
                flags |= DATA_KEPT
                self.data[len(self.flags)] = data
        if result.is_error:
            self.errors += 1
        self.add(at, flags, started, duration, attempts)
        if self.watcher is not None:
            self.watcher.call_recorded(
                ToolExecution(
                    call_id=call.id,
                    name=call.name,
                    args=args,
                    result=result,
                    blocked=blocked,
                    started_at=started,
                    duration=duration,
                    attempts=attempts,
                )
            )

    def add(self, at: int, flags: int, started: float, duration: float, attempts: int) -> None:
        self.result.append(at)
        self.flags.append(flags)
        self.started.append(started)
        self.duration.append(duration)
        self.attempts.append(attempts)

    def drop(self, start: int, stop: int) -> None:
        """Forget rows `start:stop` (calls of a batch no step claimed)."""
        for column in (self.result, self.flags, self.started, self.duration, self.attempts):
            del column[start:stop]
        shift = stop - start
        for kept in (self.args, self.data):
            if kept:
                moved = {
                    row - shift if row >= stop else row: value
                    for row, value in kept.items()
                    if not start <= row < stop
                }
                kept.clear()
                kept.update(moved)

    def error_texts(self, messages: list[Message], start: int, stop: int) -> tuple[str, ...]:
        """The results of rows `start:stop` that are errors, in order."""
        found = (messages[self.result[row]] for row in range(start, stop))
        return tuple(m.content for m in found if isinstance(m, ToolResultMessage) and m.is_error)

    def execution(self, messages: list[Message], row: int, call: ToolCall) -> ToolExecution:
        """The record of row `row`, which ran `call`."""
        at = self.result[row]
        message = messages[at]
        if not isinstance(message, ToolResultMessage) or message.call_id != call.id:
            raise moved(at)
        flags = self.flags[row]
        args: Mapping[str, Any] = call.args
        if flags & ARGS_PROXY:
            args = MappingProxyType(call.args)
        elif flags & ARGS_KEPT:
            args = self.args[row]
        data: Any = None
        if flags & DATA_IS_CONTENT:
            data = message.content
        elif flags & DATA_KEPT:
            data = self.data[row]
        return ToolExecution(
            call_id=message.call_id,
            name=message.name,
            args=args,
            result=ToolResult(
                content=message.content,
                is_error=message.is_error,
                data=data,
                images=message.images,
            ),
            blocked=bool(flags & BLOCKED),
            started_at=self.started[row],
            duration=self.duration[row],
            attempts=self.attempts[row],
        )


def moved(at: int) -> RuntimeError:
    """The error for a record whose message is no longer where the table saw it."""
    return RuntimeError(
        f"message {at} of the conversation is not the one its step recorded: "
        "RunState.messages must only be appended to"
    )

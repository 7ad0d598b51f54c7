"""How a finished `StepRecord` maps onto `StepTable`'s columns.

The kernel writes columns directly as a step happens. Records that arrive whole (a state
loaded from JSON, or built by hand) are matched against the conversation here: a record
packs only if every value the table would rebuild comes out equal, else the table keeps it
whole. Either way reading it back gives an equal record.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, TypeAlias

from hookagent._messages import AssistantMessage, Message, ToolCall, ToolResultMessage
from hookagent.kernel._call_table import (
    ARGS_KEPT,
    ARGS_PROXY,
    BLOCKED,
    DATA_IS_CONTENT,
    DATA_KEPT,
)
from hookagent.kernel._records import StepKind, StepRecord, ToolExecution
from hookagent.tools._base import ToolResult

__all__ = ["ERROR", "FINAL_RESPONSE", "KINDS", "TOOL_EXECUTION", "CallRow", "pack"]

KINDS: Final[tuple[StepKind, ...]] = ("tool_execution", "final_response", "error")
"""A step's kind, by its code in the table."""
TOOL_EXECUTION, FINAL_RESPONSE, ERROR = 0, 1, 2
_CODES: Final = {kind: code for code, kind in enumerate(KINDS)}

_ROW_LIMIT: Final = 2**31
_ATTEMPTS_LIMIT: Final = 2**32

CallRow: TypeAlias = tuple[int, int, Mapping[str, Any] | None, Any]
"""A call's result-message index, flags, and its args and data when kept whole (else None)."""


def pack(
    record: StepRecord, index: int, messages: list[Message], scan: int
) -> tuple[int, int, list[CallRow]] | None:
    """Where `record`'s messages are (searching from `scan`): its reply's index, where the
    next search starts, and a row per call; None if the columns cannot describe it."""
    if not (
        type(record) is StepRecord
        and type(record.index) is int
        and record.index == index
        and record.kind in _CODES
        and type(record.started_at) is float
        and type(record.duration) is float
        and type(record.errors) is tuple
    ):
        return None
    response = record.response
    if response is None:
        return None if record.executions else (-1, scan, [])
    at = _find_reply(messages, scan, response)
    if at < 0 or at >= _ROW_LIMIT or len(record.executions) > len(response.tool_calls):
        return None
    rows: list[CallRow] = []
    cursor = at + 1
    for execution, call in zip(record.executions, response.tool_calls, strict=False):
        row = _call_row(execution, call, messages, cursor)
        if row is None:
            return None
        rows.append(row)
        cursor = row[0] + 1
    return at, cursor, rows


def _find_reply(messages: list[Message], start: int, reply: AssistantMessage) -> int:
    for at in range(start, len(messages)):
        message = messages[at]
        if message is reply or (type(message) is AssistantMessage and message == reply):
            return at
    return -1


def _call_row(
    execution: ToolExecution, call: ToolCall, messages: list[Message], start: int
) -> CallRow | None:
    result = execution.result
    if not (
        type(execution) is ToolExecution
        and execution.call_id == call.id
        and execution.name == call.name
        and type(execution.blocked) is bool
        and type(execution.started_at) is float
        and type(execution.duration) is float
        and type(execution.attempts) is int
        and 0 <= execution.attempts < _ATTEMPTS_LIMIT
        and type(result) is ToolResult
        and type(result.is_error) is bool
    ):
        return None
    at = _find_result(messages, start, execution, result)
    if at < 0 or at >= _ROW_LIMIT:
        return None
    flags = BLOCKED if execution.blocked else 0
    args = execution.args
    kept_args: Mapping[str, Any] | None = None
    if args is call.args or (type(args) is type(call.args) and args == call.args):
        pass
    elif type(args) is MappingProxyType and args == call.args:
        flags |= ARGS_PROXY
    elif args is None:  # not a mapping: keep the whole record
        return None
    else:
        flags |= ARGS_KEPT
        kept_args = args
    data = result.data
    if data is None:
        pass
    elif type(data) is str and data == result.content:
        flags |= DATA_IS_CONTENT
        data = None
    else:
        flags |= DATA_KEPT
    return at, flags, kept_args, data


def _find_result(
    messages: list[Message], start: int, execution: ToolExecution, result: ToolResult
) -> int:
    for at in range(start, len(messages)):
        message = messages[at]
        if (
            type(message) is ToolResultMessage
            and message.call_id == execution.call_id
            and message.name == execution.name
            and message.content == result.content
            and message.is_error is result.is_error
        ):
            return at
    return -1

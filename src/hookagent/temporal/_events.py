"""A hook event as activity data, and back: a fold whose hooks may do I/O runs in an
activity, over the event the workflow built.

Each field but `run` is written as JSON by its declared type (an exception as its type name
and message, or a `ModelError` whole, as `durable.errors` keeps it). The run travels as a
snapshot of its state (`RunState.to_json`): the activity's hooks read the run as it stood
when the fold began, through a view that cannot fire other points.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Mapping
from typing import Any

from hookagent.durable import _errors as errors
from hookagent.hooks import _events as events
from hookagent.kernel._approval import Answer, Question
from hookagent.kernel._records import StepRecord
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.models._base import ToolSpec
from hookagent.temporal._wire import raised

__all__ = ["adapter", "decode", "encode", "plain"]


def encode(event: Any, state: RunState) -> dict[str, Any]:
    kind = type(event).__name__
    hints = _hints(kind)
    values: dict[str, Any] = {}
    for field in dataclasses.fields(event):
        if field.name == "run":
            continue
        value = getattr(event, field.name)
        if isinstance(value, BaseException):
            values[field.name] = {"error": errors.dump(value)}
        else:
            values[field.name] = adapter(hints[field.name]).dump_python(
                value, mode="json", fallback=plain, warnings=False
            )
    return {"kind": kind, "fields": values, "state": state.to_json()}


def decode(data: Mapping[str, Any], specs: tuple[ToolSpec, ...]) -> Any:
    """The event `encode` wrote, over a view of the run's snapshot."""
    kind = data["kind"]
    hints = _hints(kind)
    values: dict[str, Any] = {}
    for name, value in data["fields"].items():
        if hints[name] is BaseException:
            values[name] = raised(value)
        else:
            values[name] = adapter(hints[name]).validate_python(value)
    run = RunView(RunState.from_json(data["state"]), specs)
    return getattr(events, kind)(run=run, **values)


@functools.cache
def _hints(kind: str) -> dict[str, Any]:
    if kind not in events.__all__:
        raise ValueError(f"not a hook event: {kind!r}")
    scope = {"RunView": RunView, "StepRecord": StepRecord, "Question": Question, "Answer": Answer}
    return typing.get_type_hints(getattr(events, kind), localns=scope)


@functools.cache
def adapter(kind: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(kind)


def plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) else repr(value)

"""JSON for what the journal and the store keep: messages, steps, decisions, replies, tool
results, answers, and the fields hooks may rewrite at each point.

One pydantic `TypeAdapter` per type, built on first use (building one costs more than
importing hookagent); mappings that hooks saw read-only are written as plain objects.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hookagent.hooks.decision import Decision
from hookagent.kernel.approval import Answer
from hookagent.kernel.records import StepRecord
from hookagent.messages import Message
from hookagent.models.base import ModelRequest, ModelResponse
from hookagent.tools.base import ToolResult

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["canonical", "digest", "dump", "dump_field", "load", "load_field"]


def _fallback(value: Any) -> Any:
    """Read-only mappings and sequences (views of the run, windows of its history) as plain
    objects and lists; anything else as its repr."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(value)
    return repr(value)


@functools.cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    from pydantic import TypeAdapter

    return TypeAdapter(kind)


NAMED: dict[str, Any] = {
    "message": Message,
    "step": StepRecord,
    "decision": Decision,
    "response": ModelResponse,
    "result": ToolResult,
    "answer": Answer,
}


def dump(kind: str, value: Any) -> str:
    return _adapter(NAMED[kind]).dump_json(value, fallback=_fallback, warnings=False).decode()


def load(kind: str, text: str) -> Any:
    return _adapter(NAMED[kind]).validate_json(text)


FIELDS: dict[str, Any] = {
    "prompt": str,
    "request": ModelRequest,
    "response": ModelResponse | None,
    "args": dict[str, Any],
    "result": ToolResult,
    "output": str | None,
    "answer": Answer | None,
}
"""The type of every field a hook may rewrite, at any point (see `HookPoint.writable`)."""


def dump_field(name: str, value: Any) -> Any:
    """A rewritten event field as JSON data."""
    adapter = _adapter(FIELDS[name])
    return adapter.dump_python(value, mode="json", fallback=_fallback, warnings=False)


def load_field(name: str, data: Any) -> Any:
    return _adapter(FIELDS[name]).validate_python(data)


def canonical(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal arguments, equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_fallback)


def digest(*parts: Any) -> str:
    return hashlib.sha256(canonical(list(parts)).encode()).hexdigest()[:32]

"""JSON for what the journal and the store keep: messages, steps, decisions, replies, tool
results, answers, and the fields hooks may rewrite at each point.

One pydantic `TypeAdapter` per type, built on first use (building one costs more than
importing hookagent); mappings that hooks saw read-only are written as plain objects.

Text with unpaired UTF-16 surrogates (which UTF-8, hence the store, cannot hold) is written
with each one as U+FFFD, in every row and journal entry; `stored` gives a run the value as a
resumed run will read it back, so both see the same thing.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from hookagent import _surrogates as surrogates
from hookagent._canonical import canonical, digest, plain
from hookagent._messages import Message
from hookagent.hooks._decision import Decision
from hookagent.kernel._approval import Answer
from hookagent.kernel._records import StepRecord
from hookagent.models._base import ModelRequest, ModelResponse
from hookagent.tools._base import ToolResult

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = [
    "canonical",
    "digest",
    "dump",
    "dump_field",
    "load",
    "load_field",
    "stored",
]


_fallback = plain


T = TypeVar("T")


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
    return stored(kind, value)[0]


def stored(kind: str, value: T) -> tuple[str, T]:
    """The JSON for `value`, and `value` as `load` will give it back: `value` itself unless
    writing it replaced unpaired surrogates."""
    adapter = _adapter(NAMED[kind])
    try:
        return adapter.dump_json(value, fallback=_fallback, warnings=False).decode(), value
    except Exception as exc:
        from pydantic_core import PydanticSerializationError  # here: a flush is on every step

        if not isinstance(exc, PydanticSerializationError):
            raise
        plain = _scrub(adapter.dump_python(value, fallback=_fallback, warnings=False))
        text = _adapter(Any).dump_json(plain, fallback=_fallback, warnings=False).decode()
        loaded: T = load(kind, text)
        return text, loaded


def load(kind: str, text: str) -> Any:
    from pydantic import ValidationError

    adapter = _adapter(NAMED[kind])
    try:
        return adapter.validate_json(text)
    except ValidationError as exc:
        if exc.errors()[0]["type"] != "json_invalid":
            raise
        # nesting past pydantic's JSON reader (about 200 levels), which json reads
        return adapter.validate_python(json.loads(text))


def _scrub(value: Any) -> Any:
    """Plain data with every unpaired surrogate, in keys and strings, as U+FFFD. Recursive:
    pydantic has already refused to walk anything deep enough to matter."""
    if isinstance(value, str):
        return surrogates.replace(value)
    if isinstance(value, Mapping):
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        return [_scrub(v) for v in value]
    return value


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

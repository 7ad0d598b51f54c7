"""A failed model call as journal data, so a resumed segment meets the same failure (and the
error policy's recorded decision about it) instead of calling the model again."""

from __future__ import annotations

import json

from hookagent._errors import ModelError
from hookagent._surrogates import replace_escapes

__all__ = ["RecordedError", "dump", "load"]


class RecordedError(RuntimeError):
    """A failure that was not a `ModelError`, as recorded: its type name and message."""


def dump(exc: BaseException) -> str:
    data: dict[str, object] = {"type": type(exc).__name__, "text": str(exc)}
    if isinstance(exc, ModelError):
        data |= {
            "provider": exc.provider,
            "model": exc.model,
            "status": exc.status,
            "timed_out": exc.timed_out,
            "transient": exc.transient,
            "retry_after": exc.retry_after,
        }
    return replace_escapes(json.dumps(data, default=repr))


def load(text: str) -> Exception:
    data = json.loads(text)
    if "provider" not in data:
        return RecordedError(f"{data['type']}: {data['text']}")
    error = ModelError(
        "",
        provider=data["provider"],
        model=data["model"],
        status=data["status"],
        timed_out=data["timed_out"],
        transient=data["transient"],
        retry_after=data["retry_after"],
    )
    error.args = (data["text"],)
    return error

"""The JSON of stored records as people read it: `--json` output and `hookagent serve`'s
API show a session and a waiting question the same way."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from hookagent.store._records import QuestionRecord, SessionRecord

__all__ = ["fields_dict", "question_dict", "session_dict"]

_SESSION_FIELDS: Final = (
    "id",
    "name",
    "status",
    "title",
    "created_at",
    "updated_at",
    "head_run_id",
    "forked_from",
)


def question_dict(question: QuestionRecord) -> dict[str, Any]:
    """A waiting run's question as `--json` output shows it."""
    data = _object(question.data)
    return {
        "id": question.id,
        "run_id": question.run_id,
        "call_id": data.get("call_id"),
        "tool": data.get("tool_name"),
        "args": data.get("args"),
        "question": data.get("question"),
        "hook": data.get("hook"),
        "point": data.get("point"),
        "expires_at": question.expires_at,
    }


def session_dict(session: SessionRecord) -> dict[str, Any]:
    """A session as `--json` output shows it."""
    return fields_dict(session, _SESSION_FIELDS)


def fields_dict(record: object, names: Iterable[str]) -> dict[str, Any]:
    """The fields `names` of `record`, in that order: a record as `--json` shows it."""
    return {name: getattr(record, name) for name in names}


def _object(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}

"""The JSON of stored records as people read it: `--json` output and `hookagent serve`'s
API show a session and a waiting question the same way."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hookagent.store._records import QuestionRecord, SessionRecord

__all__ = ["question_dict", "session_dict"]


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
    return {
        "id": session.id,
        "name": session.name,
        "status": session.status,
        "title": session.title,
        "created_at": session.created_at,
        "updated_at": session.updated_at,
        "head_run_id": session.head_run_id,
        "forked_from": session.forked_from,
    }


def _object(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}

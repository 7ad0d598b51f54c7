"""Records as the API shows them: the same shapes as the command line's `--json` where it
has one, and nothing of a run's metadata (it keeps the options a run was started with,
which may name credentials): a run shows its outcome, usage and position only."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final

from fastapi import Query

from hookagent.sessions._records_json import question_dict, session_dict
from hookagent.store._records import CallRecord, QuestionRecord, RunRecord, SessionRecord

__all__ = [
    "Limit",
    "Offset",
    "arg_changes",
    "call_json",
    "given_args",
    "page",
    "question_json",
    "run_json",
    "session_json",
]


_RUN_SCALARS: Final = (
    "output",
    "stop_reason",
    "stop_message",
    "error",
    "usage",
    "started_at",
    "elapsed",
    "position",
)

session_json = session_dict
Limit = Annotated[int, Query(ge=1, le=500, description="Items in a page.")]
Offset = Annotated[int, Query(ge=0, description="Items to skip: a page's `next_offset`.")]


def page(items: Sequence[Any], limit: int, offset: int, read: int | None = None) -> dict[str, Any]:
    """A page of a list: `next_offset` is where the next page starts, None after the last.
    `read`: how many items the store returned for this page, when some were left out."""
    count = len(items) if read is None else read
    return {
        "items": list(items),
        "limit": limit,
        "offset": offset,
        "next_offset": offset + count if count >= limit else None,
    }


def run_json(run: RunRecord) -> dict[str, Any]:
    scalars = json.loads(run.scalars or "{}")
    return {
        "id": run.id,
        "session_id": run.session_id,
        "status": run.status,
        "created_at": run.created_at,
        "updated_at": run.updated_at,
        "parent_run_id": run.parent_run_id,
        "prompt": run.prompt,
        "policy_version": run.policy_version,
        **{key: scalars.get(key) for key in _RUN_SCALARS},
    }


def question_json(question: QuestionRecord, session: SessionRecord | None = None) -> dict[str, Any]:
    """A question as the inbox shows it: what asks (hook, point, its question), about which
    call (tool, arguments), until when (expiry, then the default), and its answer if any."""
    data = json.loads(question.data)
    shown = {
        **question_dict(question),
        "session_id": question.session_id,
        "step": data.get("step"),
        "options": data.get("options") or [],
        "default": data.get("default"),
        "created_at": question.created_at,
        "expired": question.expires_at is not None and question.expires_at <= time.time(),
        "fingerprint": question.fingerprint,
        "answer": json.loads(question.answer) if question.answer else None,
        "answered_at": question.answered_at,
    }
    if session is not None:
        shown["session"] = {"id": session.id, "name": session.name, "title": session.title}
    return shown


def call_json(call: CallRecord) -> dict[str, Any]:
    return {
        "call_id": call.call_id,
        "step": call.step,
        "name": call.name,
        "args": json.loads(call.args),
        "state": call.state,
        "result": json.loads(call.result) if call.result else None,
        "updated_at": call.updated_at,
    }


def given_args(messages: Sequence[str], call_id: str) -> dict[str, Any] | None:
    """The arguments of call `call_id` as the model gave them, from a run's conversation
    (newest first: a waiting run asks about a call of its last reply); None if not there."""
    for text in reversed(messages):
        data = json.loads(text)
        calls = data.get("tool_calls") if isinstance(data, dict) else None
        for call in calls or ():
            if isinstance(call, dict) and call.get("id") == call_id:
                args = call.get("args")
                return args if isinstance(args, dict) else None
    return None


_MISSING: Final = object()


def arg_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per argument, what changed from `before` to `after`, in key order: `changed`,
    `added` or `removed`, with both values (a missing one null)."""
    changes = []
    for key in sorted({*before, *after}):
        old, new = before.get(key, _MISSING), after.get(key, _MISSING)
        if old == new:
            continue
        change = "added" if old is _MISSING else "removed" if new is _MISSING else "changed"
        changes.append(
            {
                "key": key,
                "before": None if old is _MISSING else old,
                "after": None if new is _MISSING else new,
                "change": change,
            }
        )
    return changes

"""What a notification says: a one-line Slack-compatible `text`, the question's fields, and
a link to it in the inbox.

`text` is escaped as Slack reads it (`&`, `<`, `>`), so an argument the model wrote, such as
`<!channel>`, shows as written instead of pinging a channel.
"""

from __future__ import annotations

import json
from typing import Any, Final

from hookagent._record import record
from hookagent.capabilities.audit._describe import plain
from hookagent.kernel._approval import Question
from hookagent.store._records import SessionRecord

__all__ = ["Asked", "inbox_link", "payload"]

_LINE: Final = 300
"""The most characters of `text` before the link."""


@record
class Asked:
    """A question as a run put it to a human, with where it was asked."""

    question: Question
    session_id: str | None
    agent_type: str
    asked_at: float


def inbox_link(inbox_url: str | None, question_id: str | None) -> str | None:
    """The inbox page, at the question's card (`#q-ID`) when the question is in a store."""
    if inbox_url is None:
        return None
    base = inbox_url.split("#", 1)[0]
    return f"{base}#q-{question_id}" if question_id else base


def payload(
    asked: Asked,
    *,
    question_id: str | None,
    expires_at: float | None,
    session: SessionRecord | None,
    inbox_url: str | None,
    max_chars: int,
) -> dict[str, Any]:
    question = asked.question
    args = plain(dict(question.args), max_chars) if question.args is not None else None
    link = inbox_link(inbox_url, question_id)
    return {
        "text": _text(asked, args, session, link),
        "event": "question.asked",
        "question_id": question_id,
        "session_id": asked.session_id,
        "session_name": session.name if session is not None else None,
        "session_title": session.title if session is not None else None,
        "run_id": question.run_id,
        "agent_type": asked.agent_type,
        "point": question.point,
        "step": question.step,
        "call_id": question.call_id,
        "tool": question.tool_name,
        "args": args,
        "hook": question.hook,
        "reason": question.question,
        "options": list(question.options),
        "default": question.default,
        "timeout": question.timeout,
        "asked_at": asked.asked_at,
        "expires_at": expires_at,
        "link": link,
    }


def _text(
    asked: Asked, args: dict[str, Any] | None, session: SessionRecord | None, link: str | None
) -> str:
    question = asked.question
    what = question.tool_name or question.point
    if question.tool_name is not None and args is not None:
        what += "(" + ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
        what += ")"
    label = (session.name or session.title or session.id) if session is not None else None
    where = f"session {label or asked.session_id}" if asked.session_id else f"run {question.run_id}"
    line = " ".join(
        f"Approval needed: {what} · {question.hook}: {question.question} · {where}".split()
    )
    if len(line) > _LINE:
        line = line[: _LINE - 1] + "…"
    line = _slack(line)
    return f"{line} · {link}" if link else line


def _slack(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

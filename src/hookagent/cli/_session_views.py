"""What the session commands print, as text or as `--json`: a run that ended waiting and its
questions, the `sessions ls` list, a `sessions show` session; and the short one-line forms of
calls, values and times they share."""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, final

from rich.console import Console
from rich.text import Text

from hookagent.cli._json_out import emit_json
from hookagent.sessions._records_json import fields_dict, question_dict, session_dict

if TYPE_CHECKING:
    from hookagent.durable._sessions import SessionDetail
    from hookagent.hooks._decision import Decision
    from hookagent.kernel._result import RunResult
    from hookagent.store._records import QuestionRecord, RunRecord, SessionRecord

__all__ = [
    "SHORT",
    "Outcome",
    "call_text",
    "detail_dict",
    "plain_console",
    "print_detail",
    "print_sessions",
    "question_dict",
    "report",
    "session_dict",
    "short",
]

SHORT: Final = 100
"""Characters of a message or value shown in text output before it is cut."""


# -- a run that ended (or paused) -------------------------------------------------------------
@final
@dataclass(frozen=True, slots=True)
class Outcome:
    """A run as it ended (or paused), with its session and the questions it waits on."""

    result: RunResult
    session: SessionRecord | None
    questions: list[QuestionRecord]

    @property
    def session_label(self) -> str:
        if self.session is None:
            return self.result.state.session_id or "?"
        return self.session.name or self.session.id


def report(
    outcome: Outcome,
    *,
    json_output: bool,
    console: Console,
    store_url: str | None,
    extra: Mapping[str, Any] | None = None,
) -> None:
    """The run's result as one JSON object (with `extra` keys), or (as text) its questions
    if it waits."""
    if json_output:
        session = outcome.session
        data = {
            **outcome.result.to_dict(),
            "session_id": outcome.result.state.session_id,
            "session": session.name if session is not None else None,
            "questions": [question_dict(q) for q in outcome.questions],
            **(extra or {}),
        }
        emit_json(data)
    elif outcome.result.status == "waiting":
        _print_waiting(console, outcome, store_url)


def _print_waiting(console: Console, outcome: Outcome, store_url: str | None) -> None:
    run_id = outcome.result.run_id
    say = _sayer(console)
    say(f"waiting for an answer · run {run_id} · session {outcome.session_label}", "bold magenta")
    questions = [question_dict(q) for q in outcome.questions]
    for question in questions:
        _print_question(console, question)
    calls = {q["call_id"] for q in questions}
    call = f" [{calls.pop()}]" if len(calls) == 1 and None not in calls else " [CALL]"
    store = f" --store {shlex.quote(store_url)}" if store_url is not None else ""
    say("answer it:", "bold")
    say(f"  hookagent approve {run_id}{call} [--scope once|run|session]{store}")
    say(f"  hookagent deny {run_id}{call} --reason TEXT{store}")
    say("then continue it:", "bold")
    say(f"  hookagent resume {run_id}{store}")


def _print_question(console: Console, question: Mapping[str, Any]) -> None:
    console.print(Text("  ? ", style="bold magenta") + Text(str(question["question"] or "")))
    parts = []
    if question["tool"]:
        parts.append(call_text(str(question["tool"]), question["args"] or {}))
    if question["call_id"]:
        parts.append(f"call {question['call_id']}")
    parts.append(f"asked by {question['hook']} at {question['point']}")
    parts.append(f"question {question['id']}")
    console.print(Text("    " + " · ".join(parts), style="dim"))


# -- sessions ls ------------------------------------------------------------------------------
def print_sessions(console: Console, sessions: Sequence[SessionRecord]) -> None:
    """`sessions ls` as text: one aligned row per session under a header."""
    now = time.time()
    rows = [
        (s.name or s.id, s.status, _ago(s.updated_at, now), short(s.title, 60)) for s in sessions
    ]
    header = ("SESSION", "STATUS", "UPDATED", "TITLE")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        console.print(Text("  ".join([*cells, row[3]]).rstrip(), style=""))


# -- sessions show ----------------------------------------------------------------------------
def detail_dict(detail: SessionDetail) -> dict[str, Any]:
    """`sessions show --json`: the session, its runs, its newest run's messages, steps and
    decisions, its open questions."""
    return {
        "session": session_dict(detail.session),
        "runs": [_run_dict(r) for r in detail.runs],
        "messages": detail.messages,
        "steps": [
            {"index": s.get("index"), "kind": s.get("kind"), "tool_calls": _step_calls(s)}
            for s in detail.steps
        ],
        "decisions": [
            {
                "point": d.point,
                "step": d.step,
                "call_id": d.call_id,
                "outcome": d.outcome,
                "hook": d.hook,
                "reason": d.reason,
                "answer": d.answer,
            }
            for d in _shown(detail.decisions)
        ],
        "questions": [question_dict(q) for q in detail.pending],
    }


def _run_dict(run: RunRecord) -> dict[str, Any]:
    return fields_dict(run, ("id", "status", "created_at", "updated_at", "prompt"))


def print_detail(console: Console, detail: SessionDetail, store_url: str | None) -> None:
    """`sessions show` as text."""
    from hookagent.cli._render import decision_line

    say = _sayer(console)
    session = detail.session
    say(f"session {session.name or session.id}", "bold")
    say(f"  id {session.id} · {session.status} · updated {_ago(session.updated_at, time.time())}")
    if session.title:
        say(f"  title: {short(session.title)}")
    if session.forked_from:
        say(f"  forked from {session.forked_from}")
    say(f"runs ({len(detail.runs)}):", "bold")
    for run in detail.runs:
        say(f"  {run.id}  {run.status:<9}  {_when(run.created_at)}")
    if detail.messages:
        say(f"messages of {session.head_run_id}:", "bold")
        for message in detail.messages:
            say("  " + _message_line(message))
    if detail.steps:
        say("steps:", "bold")
        for step in detail.steps:
            calls = [_step_call_text(c) for c in _step_calls(step)]
            say(
                f"  {step.get('index')} {step.get('kind')}"
                + (": " if calls else "")
                + ", ".join(calls)
            )
    decisions = _shown(detail.decisions)
    if decisions:
        say("decisions:", "bold")
        for decision in decisions:
            console.print(decision_line(decision))
    if detail.pending:
        say("waiting for an answer:", "bold magenta")
        questions = [question_dict(q) for q in detail.pending]
        for question in questions:
            _print_question(console, question)
        store = f" --store {shlex.quote(store_url)}" if store_url is not None else ""
        run_id = detail.pending[0].run_id
        say(
            f"  hookagent approve {run_id} [CALL]{store} · hookagent deny {run_id} [CALL] "
            f"--reason TEXT{store}"
        )


def _message_line(message: Mapping[str, Any]) -> str:
    role = str(message.get("role", "?"))
    content = short(str(message.get("content") or ""))
    if role == "assistant":
        calls = [
            f"{call_text(str(c.get('name')), c.get('args') or {})} [{c.get('id')}]"
            for c in message.get("tool_calls") or ()
            if isinstance(c, Mapping)
        ]
        return "assistant: " + " ".join(filter(None, [content, *(f"→ {c}" for c in calls)]))
    if role == "tool":
        error = "[error] " if message.get("is_error") else ""
        return f"tool {message.get('name')} [{message.get('call_id')}]: {error}{content}"
    return f"{role}: {content}"


def _step_calls(step: Mapping[str, Any]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for execution in step.get("executions") or ():
        result = execution.get("result") or {}
        calls.append(
            {
                "call_id": execution.get("call_id"),
                "name": execution.get("name"),
                "args": execution.get("args") or {},
                "blocked": bool(execution.get("blocked")),
                "is_error": bool(result.get("is_error")),
                "result": result.get("content"),
            }
        )
    return calls


def _step_call_text(call: Mapping[str, Any]) -> str:
    mark = " [blocked]" if call["blocked"] else " [error]" if call["is_error"] else ""
    return call_text(str(call["name"]), call["args"]) + mark


def _shown(decisions: Sequence[Mapping[str, Any]]) -> list[Decision]:
    """The decisions that did something, as the live view shows them."""
    from hookagent.cli._render import is_shown
    from hookagent.durable import _codec as codec

    loaded: list[Decision] = [codec.load("decision", json.dumps(d)) for d in decisions]
    return [d for d in loaded if is_shown(d)]


# -- short forms ------------------------------------------------------------------------------
def plain_console() -> Console:
    """The console the `hookagent` command prints to."""
    from hookagent.cli._exits import console

    return console()


def call_text(name: str, args: Mapping[str, Any]) -> str:
    """A tool call on one line: `name(key=value, …)`, each value cut short."""
    inner = ", ".join(f"{key}={_value(value)}" for key, value in args.items())
    return f"{name}({inner})"


def short(text: str, limit: int = SHORT) -> str:
    """One line of at most `limit` characters; line breaks show as ⏎."""
    flat = " ⏎ ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _value(value: Any) -> str:
    return short(repr(value) if isinstance(value, str) else json.dumps(value, default=str))


def _sayer(console: Console) -> Callable[..., None]:
    def say(text: str, style: str = "") -> None:
        console.print(Text(text, style=style))

    return say


def _ago(at: float, now: float) -> str:
    seconds = max(0.0, now - at)
    if seconds < 60:
        return f"{seconds:.0f} s ago"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min ago"
    if seconds < 86400:
        return f"{seconds // 3600:.0f} h ago"
    if seconds < 7 * 86400:
        return f"{seconds // 86400:.0f} d ago"
    return _when(at)


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))

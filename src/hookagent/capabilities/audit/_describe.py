"""What an audit record says about an event and a decision, as plain JSON data.

Everything goes through `plain`: str keys; str, int, float, bool, None, lists and dicts only,
so the canonical JSON the writer hashes is exactly what `verify` gets back by parsing the
line. Long strings are cut to `limit` characters, with the count of those left out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Final

from hookagent.hooks import _events as ev
from hookagent.hooks._decision import Decision, Vote
from hookagent.hooks._result import HookResult
from hookagent.tools._base import ToolResult

__all__ = ["describe_decision", "describe_event", "describe_outcome", "plain"]

_MAX_DEPTH: Final = 24


def plain(value: Any, limit: int | None, depth: int = 0) -> Any:
    """`value` as JSON data; anything else as its `repr`, long strings cut to `limit`."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, str):
        return _clip(value, limit)
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if depth < _MAX_DEPTH:
        if isinstance(value, Mapping):
            return {str(key): plain(item, limit, depth + 1) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [plain(item, limit, depth + 1) for item in value]
        if isinstance(value, set | frozenset):
            return sorted((plain(item, limit, depth + 1) for item in value), key=repr)
        dump = getattr(value, "model_dump", None)  # a pydantic model
        if callable(dump):
            try:
                return plain(dump(mode="json"), limit, depth + 1)
            except Exception:  # any failure: fall back to the repr
                pass
    return _clip(repr(value), limit)


def _clip(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}…[+{len(text) - limit} chars]"


def describe_outcome(outcome: HookResult) -> dict[str, Any]:
    """The strongest result of the fold so far, as the audit hook was handed it."""
    out: dict[str, Any] = {"outcome": outcome.label}
    if outcome.reason is not None:
        out["reason"] = outcome.reason
    if outcome.kind == "stop":
        out["stop_reason"] = outcome.stop_reason
    if outcome.message is not None:
        out["message"] = outcome.message
    return out


def describe_event(event: object, limit: int | None) -> dict[str, Any]:
    """The fields of `event` worth keeping (not the run view, not whole model requests)."""
    fields = _FIELDS.get(type(event))
    if fields is None:  # a point added later: at least its repr
        return {"event": _clip(repr(event), limit)}
    return {key: plain(value, limit) for key, value in fields(event).items()}


def _tool_call(event: ev.ToolCallEvent) -> dict[str, Any]:
    out: dict[str, Any] = {"call_id": event.call_id, "tool": event.tool_name, "args": event.args}
    if event.attempt != 1:
        out["attempt"] = event.attempt
    if event.in_doubt:
        out["in_doubt"] = True
    return out


def _tool_result(event: ev.ToolResultEvent) -> dict[str, Any]:
    return {
        "call_id": event.call_id,
        "tool": event.tool_name,
        "args": event.args,
        "result": _result(event.result),
        "duration": round(event.duration, 6),
        "attempt": event.attempt,
    }


def _inference(event: ev.InferenceEvent) -> dict[str, Any]:
    return {"messages": len(event.request.messages), "answered": event.response is not None}


def _inference_result(event: ev.InferenceResultEvent) -> dict[str, Any]:
    response = event.response
    return {
        "text": response.message.content,
        "tool_calls": [
            {"id": call.id, "name": call.name, "args": call.args}
            for call in response.message.tool_calls
        ],
        "finish_reason": response.finish_reason,
        "model": response.model_name,
        "tokens": [response.usage.input_tokens, response.usage.output_tokens],
        "attempt": event.attempt,
    }


def _step_end(event: ev.StepEndEvent) -> dict[str, Any]:
    record = event.record
    return {
        "step_kind": record.kind,
        "tool_calls": len(record.executions),
        "errors": record.errors,
    }


def _error(event: ev.ErrorEvent) -> dict[str, Any]:
    return {
        "error": f"{type(event.error).__name__}: {event.error}",
        "error_class": event.error_class,
        "where": event.where,
        "attempt": event.attempt,
        "retryable": event.retryable,
    }


def _permission(event: ev.PermissionEvent) -> dict[str, Any]:
    question, answer = event.question, event.answer
    return {
        "tool": event.tool_name,
        "call_id": question.call_id,
        "args": question.args,
        "question": {"hook": question.hook, "text": question.question},
        "answer": None
        if answer is None
        else {"approved": answer.approved, "by": answer.by, "reason": answer.reason},
    }


def _result(result: ToolResult) -> dict[str, Any]:
    out: dict[str, Any] = {"content": result.content, "is_error": result.is_error}
    data = result.data
    if data is not None and not (isinstance(data, str) and data == result.content):
        out["data"] = data
    return out


def _run_event(event: ev.RunEvent) -> dict[str, Any]:
    run = event.run
    out: dict[str, Any] = {"source": event.source}
    if run.status != "running":  # execution_end: how the run ended
        usage = run.usage
        out.update(
            status=run.status,
            stop_reason=run.stop_reason,
            steps=run.step_count,
            output=run.output,
            tokens=[usage.input_tokens, usage.output_tokens],
            stop_message=run.stop_message,
            error=run.error,
        )
    return out


_FIELDS: Final[dict[type[Any], Callable[[Any], dict[str, Any]]]] = {
    ev.ToolCallEvent: _tool_call,
    ev.ToolResultEvent: _tool_result,
    ev.RunEvent: _run_event,
    ev.StepEvent: lambda event: {},
    ev.InferenceEvent: _inference,
    ev.InferenceResultEvent: _inference_result,
    ev.StepEndEvent: _step_end,
    ev.ContinueEvent: lambda event: {"tool_calls": event.tool_calls},
    ev.StopEvent: lambda event: {
        "output": event.output,
        "stop_hook_active": event.stop_hook_active,
    },
    ev.PromptEvent: lambda event: {"prompt": event.prompt},
    ev.ErrorEvent: _error,
    ev.SubagentEvent: lambda event: {
        "agent_id": event.agent_id,
        "subagent": event.agent_type,
        "output": event.output,
    },
    ev.CompactEvent: lambda event: {"trigger": event.trigger, "summary": event.summary},
    ev.NotificationEvent: lambda event: {
        "notification": event.kind,
        "text": event.message,
        "title": event.title,
    },
    ev.PermissionEvent: _permission,
}
"""Event type → its fields (events are final classes: the exact type is the key)."""


def describe_decision(decision: Decision, limit: int | None) -> dict[str, Any]:
    """A recorded decision: who decided what, each vote, and a human's answer to an ask."""
    fields = {
        "point": decision.point,
        "step": decision.step,
        "call_id": decision.call_id,
        "outcome": decision.outcome,
        "reason": decision.reason,
        "hook": decision.hook,
        "by": decision.by,
        "answer": decision.answer,
        "stop_reason": decision.stop_reason,
        "message": decision.message,
        "contexts": decision.contexts,
        "votes": [_vote(vote) for vote in decision.votes],
    }
    return {k: plain(v, limit) for k, v in fields.items() if v is not None and v != ()}


def _vote(vote: Vote) -> dict[str, Any]:
    fields = {
        "hook": vote.hook,
        "decision": vote.decision,
        "reason": vote.reason,
        "changes": dict(vote.changes) or None,
        "error": vote.error,
        "by": vote.by,
    }
    return {k: v for k, v in fields.items() if v is not None}

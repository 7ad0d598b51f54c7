"""A recording read from an audit trail (`AuditTrail`), for replay without a store.

The trail holds what replay needs: the prompt (user_prompt), each reply the model gave with
its tool calls (after_inference), each tool result (after_tool) and every recorded decision
with its votes. The chain is verified first: a tampered trail is not replayed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hookagent._errors import ConfigError
from hookagent._messages import AssistantMessage, ToolCall
from hookagent.capabilities.audit import verify
from hookagent.hooks._decision import Decision, Vote
from hookagent.sessions._replay import Recording
from hookagent.tools._base import ToolResult

__all__ = ["recording_from_audit"]


def recording_from_audit(path: str | Path, run_id: str | None = None) -> Recording:
    """The run `run_id` of the trail (its last top-level run if None)."""
    file = Path(path)
    report = verify(file)
    if not report.ok:
        raise ConfigError(f"the audit trail does not verify: {report.problem}", file=str(file))
    records = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line]
    if run_id is None:
        mains = [r["run_id"] for r in records if r.get("agent_type") == "main" and r.get("run_id")]
        if not mains:
            raise ConfigError("the audit trail records no run", file=str(file))
        run_id = mains[-1]
    mine = [r for r in records if r.get("run_id") == run_id]
    if not mine:
        raise ConfigError(f"the audit trail has no run {run_id!r}", file=str(file))
    return Recording(
        run_id=run_id,
        prompt=next((r.get("prompt") or "" for r in mine if r.get("point") == "user_prompt"), ""),
        replies=[_reply(r) for r in mine if _event(r, "after_inference")],
        results={
            r["call_id"]: ToolResult(
                content=str(r["result"].get("content", "")),
                is_error=bool(r["result"].get("is_error")),
            )
            for r in mine
            if _event(r, "after_tool") and isinstance(r.get("result"), dict)
        },
        decisions=[_decision(r, run_id) for r in mine if r.get("type") == "decision"],
    )


def _event(record: dict[str, Any], point: str) -> bool:
    return record.get("type") == "event" and record.get("point") == point


def _reply(record: dict[str, Any]) -> AssistantMessage:
    calls = tuple(
        ToolCall(id=str(c["id"]), name=str(c["name"]), args=dict(c.get("args") or {}))
        for c in record.get("tool_calls") or ()
    )
    return AssistantMessage(content=str(record.get("text") or ""), tool_calls=calls)


def _decision(record: dict[str, Any], run_id: str) -> Decision:
    return Decision(
        point=str(record["point"]),
        run_id=run_id,
        step=int(record.get("step") or 0),
        call_id=record.get("call_id"),
        outcome=str(record["outcome"]),
        reason=record.get("reason"),
        hook=record.get("hook"),
        votes=tuple(
            Vote(hook=str(v.get("hook")), decision=str(v.get("decision")), reason=v.get("reason"))
            for v in record.get("votes") or ()
        ),
    )

"""Claude Code hooks of the parent's settings as a subagent runs: inside it only the tool
events (and SubagentStart/SubagentStop, fired in the parent) run, never the parent's
UserPromptSubmit or Stop, and every event JSON from inside it carries `agent_id` and
`agent_type`, and the parent's session id and transcript path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.subagents import AgentRegistry, AgentSpec, Subagents
from hookagent.testing import FunctionModel

from .hookscripts import RECORD_STDIN, group, script, settings

EVENTS = ("UserPromptSubmit", "Stop", "PreToolUse", "PostToolUse", "SubagentStart", "SubagentStop")


@h.tool
def lookup(term: str) -> str:
    """Look a term up."""
    return f"{term}: found"


def model(request: h.ModelRequest) -> Any:
    """The parent starts a checker, which calls `lookup` once and answers."""
    child = request.system_prompt == "You check."
    replies = [m for m in request.messages if m.role == "assistant"]
    if child:
        if not replies:
            return {"tool_calls": [{"name": "lookup", "args": {"term": "x"}, "id": "c1"}]}
        return "checked"
    if not replies:
        args = {"description": "check", "prompt": "check x", "subagent_type": "checker"}
        return {"tool_calls": [{"name": "Agent", "args": args, "id": "p1"}]}
    return "all done"


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "record.jsonl"
    monkeypatch.setenv("RECORD_TO", str(path))
    return path


async def test_inside_a_subagent_only_its_events_fire_and_carry_agent_id(
    tmp_path: Path, record: Path
) -> None:
    command = script(tmp_path, "record", RECORD_STDIN)
    file = settings(tmp_path, {event: [group(command)] for event in EVENTS})
    checker = AgentSpec(name="checker", description="Checks.", system_prompt="You check.")
    agent = (
        h.AgentBuilder()
        .model(FunctionModel(model))
        .tools(lookup)
        .with_(Subagents(AgentRegistry([checker])))
        .with_settings(file, project_dir=tmp_path)
        .build()
    )
    result = await agent.run("check things")
    assert result.output == "all done"
    payloads = [json.loads(line) for line in record.read_text().splitlines() if line]
    seen = [(p["hook_event_name"], p.get("tool_name"), p.get("agent_type")) for p in payloads]
    assert seen == [
        ("UserPromptSubmit", None, None),
        ("PreToolUse", "Agent", None),
        ("SubagentStart", None, "checker"),
        ("PreToolUse", "lookup", "checker"),
        ("PostToolUse", "lookup", "checker"),
        ("SubagentStop", None, "checker"),
        ("PostToolUse", "Agent", None),
        ("Stop", None, None),
    ]
    ids = {p["agent_id"] for p in payloads if "agent_id" in p}
    assert len(ids) == 1  # one child: SubagentStart/Stop and its tool events name it alike
    (agent_id,) = ids
    call = result.tool_calls[0]
    assert call.result.data["agent_id"] == agent_id
    assert all("agent_id" not in p for p in payloads if p.get("agent_type") is None)
    # one session: the child's events carry the parent's session id and transcript path
    assert len({(p["session_id"], p["transcript_path"]) for p in payloads}) == 1
    child = tmp_path / ".hookagent" / "transcripts" / payloads[0]["session_id"] / "subagents"
    assert (child / f"agent-{agent_id}.jsonl").is_file()  # its own transcript, beside it

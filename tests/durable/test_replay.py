"""Replay: a recorded run through today's hooks, no model and no tool called for real; the
decisions that changed are reported exactly."""

from __future__ import annotations

from typing import Any

import hookagent as h
from hookagent.sessions._replay import load_recording, replay
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn

CALLS: list[str] = []


@h.tool
def bash(command: str) -> str:
    """Run a command."""
    CALLS.append(command)
    return f"ran {command}"


def script() -> ScriptedModel:
    return ScriptedModel(
        [
            turn("", {"name": "bash", "args": {"command": "git status"}, "id": "c1"}),
            turn("", {"name": "bash", "args": {"command": "git push"}, "id": "c2"}),
            reply("pushed"),
        ]
    )


def note_push(event: h.ToolCallEvent) -> h.HookResult | None:
    if "push" in event.args["command"]:
        return h.HookResult.context("pushing to the shared remote")
    return None


def deny_push(event: h.ToolCallEvent) -> h.HookResult | None:
    if "push" in event.args["command"]:
        return h.HookResult.block("pushes need review now")
    return None


def agent(store: Any, *hooks: Any) -> h.Agent:
    builder = h.AgentBuilder().model(script()).tools(bash)
    if store is not None:
        builder.store(store)
    for fn in hooks:
        builder.on(h.BEFORE_TOOL, fn, match="bash")
    return builder.build()


async def test_a_rule_change_from_allow_to_deny_is_reported_exactly() -> None:
    store = MemoryStore()
    original = await agent(store, note_push).run("ship", session="s")
    assert original.output == "pushed"
    CALLS.clear()
    recording = await load_recording(store, original.run_id)
    report = await replay(recording, agent(None, deny_push))
    assert CALLS == []  # no tool ran for real
    [change] = report.changes
    assert (change.point, change.step, change.call_id) == ("before_tool", 2, "c2")
    assert change.before == "context by user:note_push"
    assert change.after == "block by user:deny_push"
    assert change.reason == "pushes need review now"
    assert "step 2 before_tool call c2: context by user:note_push → block by user:deny_push" in (
        change.line()
    )
    assert report.to_dict()["changed"] == 1


async def test_the_same_hooks_change_nothing() -> None:
    store = MemoryStore()
    original = await agent(store, note_push).run("ship", session="s")
    report = await replay(await load_recording(store, original.run_id), agent(None, note_push))
    assert report.changes == [] and report.decisions_before == report.decisions_after == 1


async def test_a_call_let_through_today_that_the_record_blocked_runs_nothing() -> None:
    store = MemoryStore()
    original = await agent(store, deny_push).run("ship", session="s")
    CALLS.clear()
    report = await replay(await load_recording(store, original.run_id), agent(None))
    assert CALLS == []
    [change] = report.changes
    assert (change.before, change.after) == ("block by user:deny_push", "none")


async def test_replay_from_an_audit_trail_reports_the_same_change(tmp_path: Any) -> None:
    from hookagent.capabilities.audit import AuditTrail
    from hookagent.sessions._replay_audit import recording_from_audit

    trail = tmp_path / "audit.jsonl"
    builder = h.AgentBuilder().model(script()).tools(bash).with_(AuditTrail(trail))
    original = await builder.on(h.BEFORE_TOOL, note_push, match="bash").build().run("ship")
    CALLS.clear()
    recording = recording_from_audit(trail)
    assert recording.run_id == original.run_id and recording.prompt == "ship"
    report = await replay(recording, agent(None, deny_push))
    assert CALLS == []
    [change] = report.changes
    assert (change.before, change.after) == ("context by user:note_push", "block by user:deny_push")
    lines = trail.read_text().splitlines()
    trail.write_text("\n".join([*lines[:3], *lines[4:]]) + "\n")  # a record deleted
    import pytest

    with pytest.raises(h.ConfigError, match="does not verify"):
        recording_from_audit(trail)


def ask_push(event: h.ToolCallEvent) -> h.HookResult | None:
    if "push" in event.args["command"]:
        return h.HookResult.ask("push to the shared remote?")
    return None


async def test_an_answered_question_replays_with_its_recorded_answer() -> None:
    for approved in (True, False):
        store = MemoryStore()
        original = await agent(store, ask_push).run(
            "ship", session="s", approver=lambda q, a=approved: a
        )
        outcomes = [d.outcome for d in original.decisions]
        assert outcomes == (["ask"] if approved else ["block"])
        report = await replay(await load_recording(store, original.run_id), agent(None, ask_push))
        assert report.changes == [], report.changes
    # A question the record never had is denied, and says why.
    store = MemoryStore()
    original = await agent(store, note_push).run("ship", session="s")
    report = await replay(await load_recording(store, original.run_id), agent(None, ask_push))
    [change] = report.changes
    assert (change.before, change.after) == ("context by user:note_push", "block by user:ask_push")
    assert change.reason is not None and "a replay asks no one" in change.reason

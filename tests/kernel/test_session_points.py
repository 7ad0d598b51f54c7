"""session_start and session_end: fired around every run that is not a subagent's, with the
source and reason Claude Code uses, in-process and in a store (paused, resumed, continued)."""

from __future__ import annotations

from typing import Any

import pytest

import hookagent as h
from hookagent.durable import _sessions as sessions
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn

from .helpers import Recorder

POINTS = (
    ("session_start", h.SESSION_START),
    ("execution_start", h.EXECUTION_START),
    ("execution_end", h.EXECUTION_END),
    ("session_end", h.SESSION_END),
)


@h.tool
def deploy(env: str) -> str:
    """Deploy to an environment."""
    return f"deployed to {env}"


def build(recorder: Recorder, *turns: Any, store: MemoryStore | None = None) -> h.AgentBuilder:
    def ask(event: h.ToolCallEvent) -> h.HookResult | None:
        return h.HookResult.ask("Deploy?") if event.args["env"] == "prod" else None

    builder = (
        h.AgentBuilder()
        .model(ScriptedModel(list(turns), by_history=True))
        .tools(deploy)
        .on(h.BEFORE_TOOL, ask)
    )
    for name, point in POINTS:
        builder.on(point, recorder.at(name))
    if store is not None:
        builder.store(store)
    return builder


def sources(recorder: Recorder) -> list[tuple[str, str]]:
    """(point, source or reason) of the session events seen, in order."""
    return [(name, event.source) for name, event in recorder.seen if name.startswith("session")]


async def test_a_new_run_opens_and_closes_its_session_around_the_run() -> None:
    recorder = Recorder()
    result = await build(recorder, reply("hi")).build().run("hello")
    assert result.status == "completed"
    assert recorder.names == ["session_start", "execution_start", "execution_end", "session_end"]
    assert sources(recorder) == [("session_start", "startup"), ("session_end", "other")]
    session_end = recorder.seen[-1][1]
    assert session_end.run.status == "completed"  # it sees how the run ended


async def test_a_run_continuing_a_session_opens_it_with_resume() -> None:
    store, recorder = MemoryStore(), Recorder()
    await build(recorder, reply("one"), store=store).build().run("first", session="chat")
    agent = build(recorder, reply("one"), reply("two"), store=store).build()
    await agent.run("second", session="chat")
    assert sources(recorder) == [
        ("session_start", "startup"),
        ("session_end", "other"),
        ("session_start", "resume"),
        ("session_end", "other"),
    ]


async def test_a_cleared_session_starts_its_conversation_afresh_with_source_clear() -> None:
    store, recorder = MemoryStore(), Recorder()
    await build(recorder, reply("one"), store=store).build().run("first", session="chat")
    model = ScriptedModel([reply("fresh")], by_history=True)
    agent = build(recorder, store=store).model(model).build()
    result = await agent.run("second", session="chat", clear=True)
    assert (result.status, result.output) == ("completed", "fresh")
    assert [m.content for m in result.state.messages] == ["second", "fresh"]
    assert sources(recorder)[2:] == [("session_start", "clear"), ("session_end", "other")]
    streamed = build(recorder, reply("again"), store=store).build()
    events = [e async for e in streamed.stream("third", session="chat", clear=True)]
    assert isinstance(events[-1], h.RunFinished)
    assert [m.content for m in events[-1].result.state.messages] == ["third", "again"]
    assert sources(recorder)[4] == ("session_start", "clear")
    kept = await store.session("chat")
    assert kept is not None and kept.head_run_id == events[-1].result.run_id  # one session


async def test_clear_without_a_kept_session_is_refused() -> None:
    with pytest.raises(h.ConfigError, match="this agent has no store"):
        await build(Recorder(), reply("hi")).build().run("hello", clear=True)
    stored = build(Recorder(), reply("hi"), store=MemoryStore()).build()
    with pytest.raises(h.ConfigError, match=r"clear=True .* name the session \(session=NAME"):
        await stored.run("hello", clear=True)


async def test_a_paused_run_has_not_ended_its_session_and_reopens_it_on_resume() -> None:
    store, recorder = MemoryStore(), Recorder()
    script = (turn("", {"name": "deploy", "args": {"env": "prod"}, "id": "c1"}), reply("done"))
    paused = await build(recorder, *script, store=store).build().run("ship it", session="s")
    assert paused.status == "waiting"
    assert sources(recorder) == [("session_start", "startup")]
    await sessions.answer(store, paused.run_id, approved=True)
    resumed = await build(recorder, *script, store=store).build().resume(paused.run_id)
    assert resumed.status == "completed"
    assert sources(recorder) == [
        ("session_start", "startup"),
        ("session_start", "resume"),
        ("session_end", "other"),
    ]


async def test_session_start_context_reaches_the_first_request() -> None:
    model = ScriptedModel([reply("ok")])
    agent = (
        h.AgentBuilder()
        .model(model)
        .on(h.SESSION_START, lambda e: h.HookResult.context(f"opened ({e.source})"))
        .build()
    )
    result = await agent.run("hello")
    assert model.calls[0].messages == 2  # the reminder, then the prompt
    first, prompt = result.state.messages[:2]
    assert first.content == "<system-reminder>\nopened (startup)\n</system-reminder>"
    assert prompt.content == "hello"


async def test_a_stop_at_session_start_ends_the_run_before_it_starts() -> None:
    recorder = Recorder()
    builder = build(recorder, reply("never"))
    builder.on(h.SESSION_START, lambda e: h.HookResult.stop("closed for maintenance"))
    result = await builder.build().run("hello")
    assert (result.status, result.steps) == ("stopped", ())
    assert "closed for maintenance" in (result.stop_message or "")
    assert recorder.names == ["session_start", "execution_end", "session_end"]


async def test_a_subagent_opens_no_session_of_its_own() -> None:
    recorder = Recorder()
    parent = h.RunState()
    child_state = h.RunState(parent_run_id=parent.run_id, agent_type="helper")
    await build(recorder, reply("child done")).build().run_child("help", child_state)
    assert recorder.names == ["execution_start", "execution_end"]

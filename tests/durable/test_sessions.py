"""Sessions: a line of runs that continue one conversation, forked, listed and inspected."""

from __future__ import annotations

import pytest

import hookagent as h
from hookagent.durable import _sessions as sessions
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn


@h.tool
def deploy(env: str) -> str:
    """Deploy to an environment."""
    return f"deployed to {env}"


def build(store: MemoryStore, *turns: object) -> h.Agent:
    def ask(event: h.ToolCallEvent) -> h.HookResult | None:
        return h.HookResult.ask("Deploy?") if event.args["env"] == "prod" else None

    return (
        h.AgentBuilder()
        .model(ScriptedModel(list(turns)))
        .tools(deploy)
        .store(store)
        .on(h.BEFORE_TOOL, ask)
        .build()
    )


async def test_a_new_message_continues_the_session_in_a_new_run() -> None:
    store = MemoryStore()
    first = await build(store, reply("Hello.")).run("hi", session="chat")
    model = ScriptedModel([reply("You said hi.")])
    agent = h.AgentBuilder().model(model).store(store).build()
    second = await agent.run("what did I say?", session="chat")
    assert second.output == "You said hi."
    assert [m.content for m in second.state.messages] == [
        "hi",
        "Hello.",
        "what did I say?",
        "You said hi.",
    ]
    assert model.calls[0].messages == 3
    [one, two] = await store.runs((await store.session("chat")).id)  # type: ignore[union-attr]
    assert (one.id, two.id) == (first.run_id, second.run_id)
    assert (await store.session("chat")).head_run_id == second.run_id  # type: ignore[union-attr]


async def test_a_session_with_a_waiting_run_takes_no_new_message() -> None:
    store = MemoryStore()
    await build(store, turn("", {"name": "deploy", "args": {"env": "prod"}})).run("go", session="s")
    with pytest.raises(h.StoreError, match="not finished"):
        await build(store, reply("x")).run("again", session="s")


async def test_inspect_shows_messages_steps_decisions_and_the_open_question() -> None:
    store = MemoryStore()
    run = await build(
        store, turn("Deploying.", {"name": "deploy", "args": {"env": "prod"}, "id": "c9"})
    ).run("ship", session="rel")
    detail = await sessions.inspect(store, "rel")
    assert detail.session.name == "rel" and detail.session.status == "waiting"
    assert detail.session.title == "ship"
    assert [m["role"] for m in detail.messages] == ["user", "assistant"]
    [question] = detail.pending
    assert '"c9"' in question.data
    assert [r.id for r in detail.runs] == [run.run_id]
    assert (await sessions.inspect(store, run.run_id)).session.id == detail.session.id


async def test_answer_by_session_and_call_and_refusals_name_the_problem() -> None:
    store = MemoryStore()
    await build(
        store, turn("", {"name": "deploy", "args": {"env": "prod"}, "id": "c1"}), reply("ok")
    ).run("go", session="s")
    with pytest.raises(h.StoreError, match="no open question about call c7"):
        await sessions.answer(store, "s", approved=True, call_id="c7")
    with pytest.raises(h.StoreError, match="no session or run 'nope'"):
        await sessions.answer(store, "nope", approved=True)
    [answered] = await sessions.answer(store, "s", approved=True, call_id="c1", scope="run")
    assert '"scope": "run"' in (answered.answer or "")
    with pytest.raises(h.StoreError, match="no open question"):
        await sessions.answer(store, "s", approved=False)


async def test_fork_starts_a_new_session_from_the_same_conversation() -> None:
    store = MemoryStore()
    await build(store, reply("Paris.")).run("capital of France?", session="geo")
    forked = await sessions.fork(store, "geo", name="geo-2")
    assert forked.forked_from == (await store.session("geo")).id  # type: ignore[union-attr]
    model = ScriptedModel([reply("Lyon.")])
    result = (
        await h.AgentBuilder()
        .model(model)
        .store(store)
        .build()
        .run("second city?", session="geo-2")
    )
    assert [m.content for m in result.state.messages][:2] == ["capital of France?", "Paris."]
    original = await sessions.inspect(store, "geo")
    assert len(original.messages) == 2  # untouched


async def test_sessions_are_listed_newest_first() -> None:
    store = MemoryStore()
    for name in ("a", "b", "c"):
        await build(store, reply("ok")).run("hi", session=name)
    assert [s.name for s in await store.sessions()] == ["c", "b", "a"]


async def test_a_submitted_run_waits_queued_until_someone_resumes_it() -> None:
    store = MemoryStore()
    agent = build(store, reply("Queued and done."))
    run_id = await agent.submit("later", session="q")
    record = await store.run(run_id)
    assert record is not None and (record.status, record.lease_until) == ("queued", 0.0)
    claimed = await store.claim("w1", 0.0, 30.0)
    assert claimed is not None and claimed.id == run_id
    result = await agent.resume(run_id, worker="w1")
    assert (result.status, result.output) == ("completed", "Queued and done.")
    assert [m.content for m in result.state.messages] == ["later", "Queued and done."]

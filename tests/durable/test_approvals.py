"""Approvals are bound to what was reviewed (tool, canonical arguments, policy version) and
reach as far as their scope says: this question, this run, or the whole session."""

from __future__ import annotations

from typing import Any

import hookagent as h
from hookagent.durable._answers import answer_json
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn


@h.tool
def deploy(env: str) -> str:
    """Deploy to an environment."""
    return f"deployed to {env}"


def deploys(*envs: str) -> list[Any]:
    return [
        turn("", {"name": "deploy", "args": {"env": e}, "id": f"c{i}"}) for i, e in enumerate(envs)
    ]


def build(
    store: MemoryStore, model: ScriptedModel, *extra: Any, timeout: float | None = None
) -> h.Agent:
    def ask(event: h.ToolCallEvent) -> h.HookResult | None:
        if not event.args["env"].startswith("prod"):
            return None
        return (
            h.HookResult.ask("Deploy?", timeout=timeout) if timeout else h.HookResult.ask("Deploy?")
        )

    builder = (
        h.AgentBuilder().model(model).tools(deploy).store(store).on(h.BEFORE_TOOL, ask, name="ask")
    )
    for fn in extra:
        builder.on(h.BEFORE_TOOL, fn)
    return builder.build()


async def pending(store: MemoryStore, run_id: str) -> list[Any]:
    return await store.questions(run_id)


async def test_scope_run_approves_the_same_call_again_in_that_run_but_not_other_arguments() -> None:
    store = MemoryStore()
    model = ScriptedModel([*deploys("prod", "prod", "prod-eu"), reply("ok")])
    first = await build(store, model).run("go")
    [q] = await pending(store, first.run_id)
    await store.answer(q.id, answer_json(True, scope="run"), 1.0)
    second = await build(store, model).resume(first.run_id)
    # c1 has the same fingerprint: approved by the run-scoped answer; c2 differs: a new question
    assert second.status == "waiting"
    [q2] = await pending(store, first.run_id)
    assert '"prod-eu"' in q2.data
    approved = second.decisions.at(h.BEFORE_TOOL)
    assert [d.outcome for d in approved] == ["ask", "ask"]
    assert f"approval {q.id} (scope run)" in (approved[1].answer or "")


async def test_scope_session_carries_over_to_the_next_run_and_once_does_not() -> None:
    store = MemoryStore()
    model = ScriptedModel([*deploys("prod"), reply("ok"), *deploys("prod"), reply("ok again")])
    first = await build(store, model).run("go", session="ops")
    [q] = await pending(store, first.run_id)
    await store.answer(q.id, answer_json(True, scope="session"), 1.0)
    assert (await build(store, model).resume("ops")).status == "completed"
    second = await build(store, model).run("again", session="ops")
    assert second.status == "completed" and second.output == "ok again"

    other = MemoryStore()
    model = ScriptedModel([*deploys("prod"), reply("ok"), *deploys("prod"), reply("ok again")])
    first = await build(other, model).run("go", session="ops")
    [q] = await pending(other, first.run_id)
    await other.answer(q.id, answer_json(True), 1.0)  # scope once
    await build(other, model).resume("ops")
    assert (await build(other, model).run("again", session="ops")).status == "waiting"


async def test_a_session_approval_expires_after_its_ttl() -> None:
    store = MemoryStore()
    model = ScriptedModel([*deploys("prod"), reply("ok"), *deploys("prod"), reply("ok")])
    first = await build(store, model).run("go", session="ops")
    [q] = await pending(store, first.run_id)
    await store.answer(q.id, answer_json(True, scope="session", ttl=60.0), 0.0)  # long ago
    await build(store, model).resume("ops")
    assert (await build(store, model).run("again", session="ops")).status == "waiting"


async def test_an_approval_does_not_survive_a_change_of_hooks() -> None:
    store = MemoryStore()
    model = ScriptedModel([*deploys("prod"), reply("ok")])
    first = await build(store, model).run("go")
    [q] = await pending(store, first.run_id)
    await store.answer(q.id, answer_json(True), 1.0)
    audit = lambda event: None  # noqa: E731 -- a new hook: another policy version
    again = await build(store, model, audit).resume(first.run_id)
    assert again.status == "waiting"
    [fresh] = await pending(store, first.run_id)
    assert fresh.id != q.id and fresh.fingerprint != q.fingerprint


async def test_a_question_that_expires_takes_its_default() -> None:
    store = MemoryStore()
    model = ScriptedModel([*deploys("prod"), reply("ok")])
    first = await build(store, model, timeout=0.001).run("go")
    [q] = await pending(store, first.run_id)
    assert q.expires_at is not None
    import asyncio

    await asyncio.sleep(0.01)
    resumed = await build(store, model, timeout=0.001).resume(first.run_id)
    assert resumed.status == "completed"
    blocked = resumed.steps[0].executions[0].result
    assert blocked.is_error and "default deny" in blocked.content

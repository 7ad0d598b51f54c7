"""One question answered, as `hookagent approve`/`deny` and `hookagent serve` answer it: only
a question its run still waits on takes an answer; a stale one is refused, nothing written."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import hookagent as h
from hookagent.durable import _sessions as sessions
from hookagent.durable._answering import StaleQuestion, answer_question
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn


@h.tool
def deploy(env: str) -> str:
    """Deploy to an environment."""
    return f"deployed to {env}"


def build(store: MemoryStore, model: ScriptedModel, timeout: float | None = None) -> h.Agent:
    def ask(event: h.ToolCallEvent) -> h.HookResult | None:
        if not event.args["env"].startswith("prod"):
            return None
        return h.HookResult.ask("Deploy?", timeout=timeout)

    return (
        h.AgentBuilder()
        .model(model)
        .tools(deploy)
        .store(store)
        .on(h.BEFORE_TOOL, ask, name="ask")
        .build()
    )


def deploys(*envs: str) -> list[Any]:
    return [
        turn("", {"name": "deploy", "args": {"env": e}, "id": f"c{i}"}) for i, e in enumerate(envs)
    ]


async def superseded(store: MemoryStore) -> tuple[str, Any, Any]:
    """A run whose first question expired (the run went on with its default) and that now
    waits on a second one: both are unanswered."""
    model = ScriptedModel([*deploys("prod", "prod-eu"), reply("ok")])
    first = await build(store, model, timeout=0.001).run("go", session="ops")
    await asyncio.sleep(0.01)
    again = await build(store, model, timeout=0.001).resume(first.run_id)
    assert again.status == "waiting"
    old, new = await store.questions(first.run_id)
    return first.run_id, old, new


async def test_approving_a_run_answers_only_the_question_it_waits_on() -> None:
    store = MemoryStore()
    run_id, old, new = await superseded(store)
    answered = await sessions.answer(store, run_id, approved=True, scope="session", by="me")
    assert [q.id for q in answered] == [new.id]
    # the expired question got no approval that a later call with its arguments would use
    assert await store.approvals(old.session_id, old.fingerprint) == []


async def test_a_stale_question_is_refused_naming_why_and_nothing_is_written() -> None:
    store = MemoryStore()
    run_id, old, new = await superseded(store)
    with pytest.raises(StaleQuestion, match=f"went past question {old.id}"):
        await answer_question(store, old, approved=True, by="me")
    with pytest.raises(StaleQuestion, match="another call than the one reviewed"):
        await answer_question(store, new, approved=True, by="me", seen=old.fingerprint)
    assert await store.questions(run_id) == [old, new]  # nothing answered

    given = await answer_question(store, new, approved=False, reason="no", by="api:alice")
    assert '"by": "api:alice"' in (given.answer or "")
    again = await store.question(new.id)
    assert again is not None
    with pytest.raises(StaleQuestion, match="answered already"):
        await answer_question(store, again, approved=True, by="me")

    await build(store, ScriptedModel([reply("x")])).resume(run_id)
    [late] = await store.questions(run_id)  # the expired one, never answered
    with pytest.raises(StaleQuestion, match="no longer waits"):
        await answer_question(store, late, approved=True, by="me")


@pytest.mark.parametrize(("scope", "ttl"), [("always", None), ("once", 0.0), ("run", -1.0)])
async def test_a_bad_scope_or_ttl_is_a_store_error(scope: Any, ttl: float | None) -> None:
    store = MemoryStore()
    _, _, new = await superseded(store)
    with pytest.raises(h.StoreError, match=r"scope must be|ttl must be"):
        await answer_question(store, new, approved=True, scope=scope, ttl=ttl, by="me")

"""Pause at a hook's question, answer later, resume exactly there: nothing that ran runs again."""

from __future__ import annotations

from typing import Any

import pytest

import hookagent as h
from hookagent.durable._answers import answer_json
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn


class Counter:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def hook(self, name: str) -> Any:
        def count(event: object) -> None:
            self.counts[name] = self.counts.get(name, 0) + 1

        count.__qualname__ = f"count_{name}"
        return count


def agent(
    store: MemoryStore, model: ScriptedModel, counter: Counter, effects: list[str]
) -> h.Agent:
    @h.tool
    def deploy(env: str) -> str:
        """Deploy to an environment."""
        effects.append(env)
        return f"deployed to {env}"

    def guard(event: h.ToolCallEvent) -> h.HookResult | None:
        if event.args.get("env") == "prod":
            return h.HookResult.ask("Deploy to prod?")
        return None

    return (
        h.AgentBuilder()
        .model(model)
        .tools(deploy)
        .store(store)
        .on(h.BEFORE_INFERENCE, counter.hook("before_inference"))
        .on(h.AFTER_INFERENCE, counter.hook("after_inference"))
        .on(h.BEFORE_TOOL, counter.hook("before_tool_first"), priority=-10)
        .on(h.BEFORE_TOOL, guard, name="guard")
        .on(h.AFTER_TOOL, counter.hook("after_tool"))
        .build()
    )


def script(*, by_history: bool = False) -> ScriptedModel:
    return ScriptedModel(
        [
            turn("Deploying.", {"name": "deploy", "args": {"env": "prod"}, "id": "c1"}),
            reply("Done."),
        ],
        by_history=by_history,
    )


async def test_a_question_pauses_the_run_and_an_answer_resumes_it_where_it_stopped() -> None:
    store, counter, effects = MemoryStore(), Counter(), []
    model = script()
    first = await agent(store, model, counter, effects).run("ship it", session="release")
    assert (first.status, first.stop_reason) == ("waiting", "waiting")
    assert effects == [] and len(model.calls) == 1
    [question] = await store.questions(first.run_id)
    assert '"Deploy to prod?"' in question.data and '"prod"' in question.data

    assert await store.answer(question.id, answer_json(True, reason="looks fine"), 0.0)
    before = dict(counter.counts)
    # A new agent object, as another process would build it; the same script continues.
    second = await agent(store, model, counter, effects).resume("release")
    assert (second.status, second.output) == ("completed", "Done.")
    assert effects == ["prod"]
    assert len(model.calls) == 2  # the first reply was not asked for again
    assert before == {"before_inference": 1, "after_inference": 1, "before_tool_first": 1}
    # Resuming ran no hook that had already run: only what came after the question.
    assert counter.counts == {
        "before_inference": 2,
        "after_inference": 2,
        "before_tool_first": 1,
        "after_tool": 1,
    }
    asked = second.decisions.at(h.BEFORE_TOOL)[-1]
    assert asked.outcome == "ask" and "looks fine" in (asked.answer or "")
    assert [m.role for m in second.state.messages] == ["user", "assistant", "tool", "assistant"]


async def test_a_denial_blocks_the_call_and_the_run_goes_on() -> None:
    store, counter, effects = MemoryStore(), Counter(), []
    model = script()
    first = await agent(store, model, counter, effects).run("ship it")
    [question] = await store.questions(first.run_id)
    await store.answer(question.id, answer_json(False, reason="freeze week"), 0.0)
    second = await agent(store, model, counter, effects).resume(first.run_id)
    assert second.status == "completed" and effects == []
    result = second.steps[0].executions[0].result
    assert result.is_error and "freeze week" in result.content


async def test_resuming_before_an_answer_is_refused_clearly() -> None:
    store, counter, effects = MemoryStore(), Counter(), []
    first = await agent(store, script(), counter, effects).run("ship it")
    with pytest.raises(h.StoreError, match="waiting for an answer"):
        await agent(store, script(), counter, effects).resume(first.run_id)


async def test_two_workers_racing_for_an_answered_run_one_proceeds(tmp_path: Any) -> None:
    import asyncio

    from hookagent.store._sqlite import SQLiteStore

    path = tmp_path / "s.db"
    counter, effects = Counter(), []
    first = await agent(SQLiteStore(path), script(), counter, effects).run("go", session="r")
    store = SQLiteStore(path)
    await store.open()
    [question] = await store.questions(first.run_id)
    await store.answer(question.id, answer_json(True), 0.0)
    racers = [
        agent(SQLiteStore(path), script(by_history=True), Counter(), effects) for _ in range(2)
    ]
    outcomes = await asyncio.gather(
        *(a.resume("r", worker=f"w{i}") for i, a in enumerate(racers)), return_exceptions=True
    )
    done = [o for o in outcomes if isinstance(o, h.RunResult)]
    refused = [o for o in outcomes if isinstance(o, h.StoreError)]
    assert len(done) == 1 and len(refused) == 1, outcomes
    assert done[0].status == "completed" and effects == ["prod"]
    # Refused while the winner runs, or after it has finished, by the same claim.
    assert "is being run by" in str(refused[0]) or "has ended" in str(refused[0])
    await store.close()

"""`stream_resume` watches a resumed run as `stream` watches a new one: the segment it takes
up again and what follows, as they happen, then `RunFinished`; cancelled, it stops the run as
`stream` does and leaves it resumable."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

import pytest

import hookagent as h
from hookagent.durable._answers import answer_json
from hookagent.live._events import StreamEvent
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn


def script() -> ScriptedModel:
    return ScriptedModel(
        [
            turn("Deploying.", {"name": "deploy", "args": {"env": "prod"}, "id": "c1"}),
            turn("And dev.", {"name": "deploy", "args": {"env": "dev"}, "id": "c2"}),
            reply("Done."),
        ]
    )


def agent(store: MemoryStore, model: ScriptedModel, effects: list[str], **gate: Any) -> h.Agent:
    """Deploys log their environment in `effects`; prod asks first. With `started` and
    `release` (threading events), the dev deploy says it started and waits to be released."""

    @h.tool
    def deploy(env: str) -> str:
        """Deploy to an environment."""
        if env == "dev" and gate:
            gate["started"].set()
            gate["release"].wait(10)
        effects.append(env)
        return f"deployed to {env}"

    return h.AgentBuilder().model(model).tools(deploy).store(store).on(h.BEFORE_TOOL, guard).build()


def guard(event: h.ToolCallEvent) -> h.HookResult | None:
    return h.HookResult.ask("Deploy to prod?") if event.args["env"] == "prod" else None


async def paused_and_answered(
    store: MemoryStore, model: ScriptedModel, *, streamed: bool = False
) -> str:
    """A run asked about prod, paused, then approved (`streamed`: watched as it ran, so the
    live view's hooks are among the folds its journal kept): its id."""
    if streamed:
        events = [e async for e in agent(store, model, []).stream("ship it", session="release")]
        first = events[-1].result  # type: ignore[union-attr]
    else:
        first = await agent(store, model, []).run("ship it", session="release")
    assert first.status == "waiting"
    [question] = await store.questions(first.run_id)
    assert await store.answer(question.id, answer_json(True), 0.0)
    return first.run_id


def shape(event: StreamEvent) -> tuple[Any, ...]:
    """An event as kind, step and what it names (a call, a result, an outcome)."""
    kind = type(event).__name__
    if isinstance(event, h.ToolStarted):
        return (kind, event.step, event.name, dict(event.args))
    if isinstance(event, h.ToolFinished):
        return (kind, event.step, event.execution.result.content)
    if isinstance(event, h.DecisionMade):
        return (kind, event.decision.point, event.decision.outcome)
    if isinstance(event, h.StepFinished):
        return (kind, event.record.index)
    if isinstance(event, h.RunFinished):
        return (kind, event.result.status)
    return (kind, getattr(event, "step", None))


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "stream"])
async def test_a_resumed_run_streams_its_steps_calls_and_decisions_in_order(
    streamed: bool,
) -> None:
    """The same events whether the run was watched before it paused or not: the segment taken
    up again announces its step and reply though its folds come from the journal."""
    store, model, effects = MemoryStore(), script(), list[str]()
    run_id = await paused_and_answered(store, model, streamed=streamed)
    resumed = agent(store, model, effects).stream_resume(run_id, deltas=False)
    events = [event async for event in resumed]
    assert [shape(e) for e in events] == [
        ("StepStarted", 1),  # the segment the run takes up again: its reply from the journal
        ("ModelReplied", 1),
        ("ToolStarted", 1, "deploy", {"env": "prod"}),  # as a live run sends it: let through,
        ("DecisionMade", "before_tool", "ask"),  # then its ask, answered, is recorded
        ("ToolFinished", 1, "deployed to prod"),
        ("StepFinished", 1),
        ("StepStarted", 2),
        ("ModelReplied", 2),
        ("ToolStarted", 2, "deploy", {"env": "dev"}),
        ("ToolFinished", 2, "deployed to dev"),
        ("StepFinished", 2),
        ("StepStarted", 3),
        ("ModelReplied", 3),
        ("StepFinished", 3),
        ("RunFinished", "completed"),
    ]
    final = events[-1]
    assert isinstance(final, h.RunFinished) and final.result.output == "Done."
    assert effects == ["prod", "dev"]
    assert len(model.calls) == 3, "the first reply came from the journal"


async def test_a_resumed_run_streams_model_deltas_as_stream_does() -> None:
    store, model = MemoryStore(), script()
    run_id = await paused_and_answered(store, model)
    events = [event async for event in agent(store, model, []).stream_resume(run_id)]
    assert "".join(e.text for e in events if isinstance(e, h.TextDelta)) == "And dev.Done."


async def test_cancelling_a_resumed_stream_stops_the_run_and_leaves_it_resumable() -> None:
    store, model, effects = MemoryStore(), script(), list[str]()
    run_id = await paused_and_answered(store, model)
    started, release = threading.Event(), threading.Event()
    seen: list[StreamEvent] = []

    async def consume() -> None:
        gated = agent(store, model, effects, started=started, release=release)
        async for event in gated.stream_resume(run_id, deltas=False):
            seen.append(event)

    task = asyncio.create_task(consume())
    try:
        assert await asyncio.to_thread(started.wait, 10), "the dev deploy never started"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        release.set()
    finished = seen[-1]
    assert isinstance(finished, h.RunFinished)
    assert (finished.result.status, finished.result.stop_reason) == ("stopped", "user_requested")
    assert ("ToolStarted", 2, "deploy", {"env": "dev"}) in [shape(e) for e in seen]
    assert shape(seen[-3])[:2] == ("ToolFinished", 2)
    assert shape(seen[-3])[2].startswith("Interrupted")
    kept = await store.run(run_id)
    assert kept is not None and kept.status == "running", "not ended: resumable"

    again = await agent(store, model, effects).resume(run_id)
    assert (again.status, again.output) == ("completed", "Done.")
    interrupted = again.steps[1].executions[0].result
    assert interrupted.content.startswith("In doubt")


async def test_the_call_a_resumed_run_takes_up_again_is_shown_while_its_tool_runs() -> None:
    """The prod deploy's before_tool fold comes from the journal: its `ToolStarted` is sent
    all the same before the tool returns, as for any call."""
    store, model = MemoryStore(), script()
    run_id = await paused_and_answered(store, model)
    shown = asyncio.Event()

    @h.tool
    async def deploy(env: str) -> str:
        """Deploy to an environment."""
        if env == "prod":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(shown.wait(), 10)
        return f"deployed to {env} ({'shown' if shown.is_set() else 'unseen'})"

    resumed = h.AgentBuilder().model(model).tools(deploy).store(store).on(h.BEFORE_TOOL, guard)
    async for event in resumed.build().stream_resume(run_id, deltas=False):
        if isinstance(event, h.ToolStarted) and event.call_id == "c1":
            shown.set()
        if isinstance(event, h.RunFinished):
            assert event.result.status == "completed", event.result.stop_message
            prod = event.result.steps[0].executions[0].result.content
            assert prod == "deployed to prod (shown)"

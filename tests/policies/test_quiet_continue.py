"""A run whose only should_continue hooks are the limits goes on without folding them while
no limit is reached, and after an answer goes on to the stop without folding them; a stop
whose only hooks are the limits' own completes the run without folding them. Every run ends
with the same steps, decisions and stop as when each step and the stop fold."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import hookagent as h
from hookagent import _run_context
from hookagent.hooks._events import ContinueEvent, StopEvent
from hookagent.hooks._hook import make_hook
from hookagent.kernel import _loop
from hookagent.policies._limits import (
    StepLimit,
    TokenLimit,
    ToolCallPresence,
    quiet_continue,
    quiet_stop,
)
from hookagent.testing import ScriptedModel, reply, turn


@h.tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def calls_then_answer(calls: int, tokens: int = 10) -> ScriptedModel:
    usage = h.Usage(input_tokens=tokens, output_tokens=tokens, requests=1)
    return ScriptedModel([turn("", {"name": "ping"}, usage=usage)] * calls + [reply("done")])


def never_continue(event: ContinueEvent) -> None:
    return None


def never_block(event: StopEvent) -> None:
    return None


def block_once(event: StopEvent) -> h.HookResult | None:
    return None if event.stop_hook_active else h.HookResult.block("one more step")


Build = Callable[[], h.AgentBuilder]
RUNS: dict[str, Build] = {
    "completes": lambda: h.AgentBuilder().model(calls_then_answer(4)).tools(ping),
    "step limit": lambda: (
        h.AgentBuilder().model(calls_then_answer(9)).tools(ping).limits(max_steps=3)
    ),
    "token limit": lambda: (
        h.AgentBuilder().model(calls_then_answer(9, 300)).tools(ping).limits(max_tokens=1500)
    ),
    "time limit": lambda: (
        h.AgentBuilder().model(calls_then_answer(9)).tools(ping).limits(max_seconds=1e-9)
    ),
    "no presence": lambda: (
        h.AgentBuilder().model(calls_then_answer(4)).tools(ping).limits(tool_call_presence=False)
    ),
    "a user hook": lambda: (
        h.AgentBuilder()
        .model(calls_then_answer(4))
        .tools(ping)
        .on(h.SHOULD_CONTINUE, never_continue)
    ),
    "cost limit": lambda: (
        h.AgentBuilder().model(calls_then_answer(4)).tools(ping).limits(max_cost=1000.0)
    ),
    "a user stop hook": lambda: (
        h.AgentBuilder().model(calls_then_answer(2)).tools(ping).on(h.STOP, never_block)
    ),
    "a stop hook that blocks": lambda: (
        h.AgentBuilder()
        .model(ScriptedModel([reply("first"), reply("second")]))
        .on(h.STOP, block_once, name="once")
    ),
    "a block at the step limit": lambda: (
        h.AgentBuilder()
        .model(ScriptedModel([reply("first"), reply("second")]))
        .limits(max_steps=1)
        .on(h.STOP, block_once, name="once")
    ),
}


def outline(result: h.RunResult) -> tuple[Any, ...]:
    decisions = [(d.point, d.hook, d.outcome, d.reason, d.step) for d in result.decisions]
    return (
        result.status,
        result.stop_reason,
        len(result.steps),
        decisions,
        [type(m).__name__ for m in result.state.messages],
    )


@pytest.mark.parametrize("name", list(RUNS))
async def test_a_run_ends_as_when_every_step_folds(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    quick = await RUNS[name]().build().run("go")
    monkeypatch.setattr(_run_context, "quiet_continue", lambda *hooks: None)
    monkeypatch.setattr(_run_context, "quiet_stop", lambda *hooks: None)
    folded = await RUNS[name]().build().run("go")
    assert outline(quick) == outline(folded)
    assert (quick.output, quick.state.position.phase) == (
        folded.output,
        folded.state.position.phase,
    )


@pytest.mark.parametrize(
    ("name", "reason"),
    [("step limit", "steps_limit"), ("token limit", "token_limit"), ("time limit", "time_limit")],
)
async def test_the_limits_stop_where_they_are_reached(name: str, reason: str) -> None:
    result = await RUNS[name]().build().run("go")
    assert result.stop_reason == reason
    [stop] = [d for d in result.decisions if d.outcome == "stop"]
    assert stop.hook == f"limits:{reason.replace('steps', 'step')}"


async def test_nothing_folds_at_should_continue_or_stop_under_the_default_limits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[object] = []

    def counted(kind: Callable[..., Any]) -> Callable[..., Any]:
        def build(**fields: Any) -> Any:
            built.append(kind)
            return kind(**fields)

        return build

    monkeypatch.setattr(_loop, "ContinueEvent", counted(ContinueEvent))
    monkeypatch.setattr(_loop, "StopEvent", counted(StopEvent))
    result = await RUNS["completes"]().build().run("go")
    assert (result.status, result.stop_reason, result.output) == ("completed", "completed", "done")
    assert len(result.steps) == 5
    assert built == []
    assert not result.decisions


@pytest.mark.parametrize("point", [h.SHOULD_CONTINUE, h.STOP])
async def test_a_hook_at_should_continue_or_stop_sees_the_answer_step(point: Any) -> None:
    seen: list[int] = []

    def watch(event: Any) -> None:
        seen.append(event.step)

    agent = h.AgentBuilder().model(calls_then_answer(2)).tools(ping).on(point, watch)
    result = await agent.build().run("go")
    assert result.status == "completed"
    assert seen[-1] == 3


async def test_a_user_hook_at_should_continue_runs_every_step() -> None:
    seen: list[int] = []

    def watch(event: ContinueEvent) -> None:
        seen.append(event.step)

    agent = h.AgentBuilder().model(calls_then_answer(4)).tools(ping).on(h.SHOULD_CONTINUE, watch)
    await agent.build().run("go")
    assert len(seen) == 5


def test_the_test_exists_only_for_the_limits_own_hooks() -> None:
    def hooks(*limits: Any) -> tuple[Any, ...]:
        return tuple(
            hook for limit in limits for hook in limit.hooks() if hook.point is h.SHOULD_CONTINUE
        )

    assert quiet_continue(hooks(StepLimit(3), TokenLimit(10), ToolCallPresence())) is not None
    assert quiet_continue(hooks(StepLimit(3))) is None  # no presence: no routine continue
    assert quiet_continue(None) is None
    other = make_hook(h.SHOULD_CONTINUE, never_continue)
    assert quiet_continue((*hooks(StepLimit(3), ToolCallPresence()), other)) is None


def test_the_stop_test_exists_only_for_the_limits_own_hooks() -> None:
    stops = tuple(hook for hook in StepLimit(3).hooks() if hook.point is h.STOP)
    assert quiet_stop(stops) is not None
    assert quiet_stop(None) is not None  # nobody listens: nothing can vote
    other = make_hook(h.STOP, never_block)
    assert quiet_stop((*stops, other)) is None


async def test_a_hook_added_to_should_continue_during_a_run_runs_from_then_on() -> None:
    seen: list[int] = []

    def watch(event: ContinueEvent) -> None:
        seen.append(event.step)

    agent = h.AgentBuilder().model(calls_then_answer(4)).tools(ping).build()
    added: list[bool] = []

    def add_once(event: Any) -> None:
        if not added:
            added.append(True)
            agent.registry.add(make_hook(h.SHOULD_CONTINUE, watch, name="late"))

    agent.registry.add(make_hook(h.AFTER_STEP, add_once, name="adds"))
    await agent.run("go")
    assert seen == [1, 2, 3, 4, 5]


async def test_a_hook_added_to_stop_during_a_run_runs_at_its_stop() -> None:
    model = ScriptedModel([turn("", {"name": "ping"}), reply("first"), reply("second")])
    agent = h.AgentBuilder().model(model).tools(ping).build()

    def add(event: Any) -> None:
        if event.step == 1:
            agent.registry.add(make_hook(h.STOP, block_once, name="late"))

    agent.registry.add(make_hook(h.AFTER_STEP, add, name="adds"))
    result = await agent.run("go")
    assert (result.status, result.output) == ("completed", "second")
    assert [(d.point, d.hook, d.outcome) for d in result.decisions] == [
        ("stop", "user:late", "block")
    ]

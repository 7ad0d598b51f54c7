"""After a step that called tools, a run whose only should_continue hooks are the limits goes
on without folding them while no limit is reached; every run ends with the same steps,
decisions and stop as when each step folds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import hookagent as h
from hookagent import _run_context
from hookagent.hooks._events import ContinueEvent
from hookagent.hooks._hook import make_hook
from hookagent.kernel import _loop
from hookagent.policies._limits import StepLimit, TokenLimit, ToolCallPresence, quiet_continue
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
    folded = await RUNS[name]().build().run("go")
    assert outline(quick) == outline(folded)


@pytest.mark.parametrize(
    ("name", "reason"),
    [("step limit", "steps_limit"), ("token limit", "token_limit"), ("time limit", "time_limit")],
)
async def test_the_limits_stop_where_they_are_reached(name: str, reason: str) -> None:
    result = await RUNS[name]().build().run("go")
    assert result.stop_reason == reason
    [stop] = [d for d in result.decisions if d.outcome == "stop"]
    assert stop.hook == f"limits:{reason.replace('steps', 'step')}"


async def test_only_the_last_step_folds_under_the_default_limits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[int] = []

    def counted(**fields: Any) -> ContinueEvent:
        built.append(fields["step"])
        return ContinueEvent(**fields)

    monkeypatch.setattr(_loop, "ContinueEvent", counted)
    result = await RUNS["completes"]().build().run("go")
    assert result.status == "completed"
    assert len(result.steps) == 5
    assert len(built) == 1  # the answer's step: the model called no tools


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

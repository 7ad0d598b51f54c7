"""What a call's `ToolExecution` says it ran: the arguments the tool got (its own `prepare`
included) and every attempt, error-policy retries counted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import hookagent as h
from hookagent.testing import ScriptedModel, reply, tool_call


class Shout:
    """A tool whose `prepare` adds an argument the model never sent."""

    name = "shout"
    description = "Say the text loudly."
    parameters: Mapping[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}

    def prepare(self, args: Mapping[str, Any], /) -> Mapping[str, Any]:
        return {**args, "volume": 11}

    async def __call__(self, args: Mapping[str, Any], ctx: h.ToolContext, /) -> h.ToolResult:
        return h.ToolResult.of(f"{args['text']} at {args['volume']}")


def _agent(*extra_hooks: Any) -> h.Agent:
    model = ScriptedModel([tool_call("shout", text="hi"), reply("done")])
    builder = h.AgentBuilder().model(model).tools(Shout())
    for point, fn in extra_hooks:
        builder.on(point, fn)
    return builder.build()


async def test_args_a_tool_prepares_are_recorded_when_no_hook_is_installed() -> None:
    result = await _agent().run("go")
    [execution] = result.tool_calls
    assert execution.result.content == "hi at 11"
    assert dict(execution.args) == {"text": "hi", "volume": 11}


async def test_args_a_tool_prepares_are_recorded_when_hooks_only_look() -> None:
    seen: list[dict[str, Any]] = []
    result = await _agent((h.BEFORE_TOOL, lambda e: seen.append(dict(e.args)))).run("go")
    [execution] = result.tool_calls
    assert seen == [{"text": "hi", "volume": 11}]
    assert dict(execution.args) == {"text": "hi", "volume": 11}


async def test_args_a_tool_prepares_are_recorded_in_a_stream_too() -> None:
    finished = [
        event.execution
        async for event in _agent().stream("go")
        if isinstance(event, h.ToolFinished)
    ]
    assert [dict(e.args) for e in finished] == [{"text": "hi", "volume": 11}]


async def test_attempts_count_error_policy_retries() -> None:
    calls = 0

    @h.tool
    def flaky() -> str:
        """Fail twice, then succeed."""
        nonlocal calls
        calls += 1
        if calls < 3:
            raise ConnectionError("try again")
        return "ok"

    model = ScriptedModel([tool_call("flaky"), reply("done")])
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(flaky)
        .error_policy(h.ErrorPolicy({"tool": "retry"}, max_retries=5))
        .budgets(retries=5)
        .build()
    )
    result = await agent.run("go")
    [execution] = result.tool_calls
    assert calls == 3
    assert execution.result.content == "ok"
    assert execution.attempts == 3


async def test_attempts_count_every_try_when_the_retries_run_out() -> None:
    @h.tool
    def broken() -> str:
        """Always fail."""
        raise ConnectionError("down")

    model = ScriptedModel([tool_call("broken"), reply("done")])
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(broken)
        .error_policy(h.ErrorPolicy({"tool": "retry"}, max_retries=10))
        .budgets(retries=2)
        .build()
    )
    result = await agent.run("go")
    [execution] = result.tool_calls
    assert execution.result.is_error
    assert execution.attempts == 3  # the first try and two retries

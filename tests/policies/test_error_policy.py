"""ErrorPolicy decides per error class: stop, retry (bounded, with backoff) or ignore."""

from __future__ import annotations

from typing import ClassVar

import pytest

import hookagent as h
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call


class Flaky:
    """A tool that fails `failures` times, then succeeds."""

    name = "flaky"
    description = "Fails a few times."
    parameters: ClassVar[dict[str, object]] = {"type": "object", "properties": {}}

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    async def __call__(self, args: object, ctx: h.ToolContext) -> h.ToolResult:
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError(f"failure {self.calls}")
        return h.ToolResult(content="ok")


def agent_with(tool: Flaky, policy: h.ErrorPolicy) -> h.Agent:
    model = ScriptedModel([tool_call("flaky"), reply("done")])
    return h.AgentBuilder().model(model).tools(tool).error_policy(policy).build()


async def test_stop_on_any_error_fails_the_run_on_a_tool_exception() -> None:
    result = await agent_with(Flaky(1), h.ErrorPolicy.stop_on_any_error()).run("go")
    assert (result.status, result.stop_reason) == ("failed", "error")
    assert "ConnectionError: failure 1" in (result.error or "")
    assert result.decisions.at(h.ON_ERROR)[0].hook == "policies:error_policy"


async def test_retry_tool_errors_retries_then_succeeds() -> None:
    tool = Flaky(2)
    policy = h.ErrorPolicy.retry_tool_errors(3)
    policy.backoff = 0.0
    result = await agent_with(tool, policy).run("go")
    assert tool.calls == 3
    assert result.tool_calls[0].result.content == "ok"
    assert result.status == "completed"


async def test_retries_run_out_into_a_retry_limit() -> None:
    tool = Flaky(10)
    result = await agent_with(tool, h.ErrorPolicy({"tool": "retry"}, max_retries=2)).run("go")
    assert tool.calls == 3
    assert result.stop_reason == "retry_limit"
    assert result.status == "failed"


async def test_ignore_tool_errors_reports_the_failure_to_the_model() -> None:
    result = await agent_with(Flaky(1), h.ErrorPolicy.ignore_tool_errors()).run("go")
    assert result.status == "completed"
    assert "failure 1" in result.tool_calls[0].result.content


async def test_model_rate_limits_are_retried_by_the_default_policy() -> None:
    calls = 0

    def model(request: h.ModelRequest) -> h.ModelResponse:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise h.ModelError("slow down", provider="test", model="m", status=429)
        return reply("finally")

    policy = h.ErrorPolicy({"rate_limit": "retry"}, max_retries=3)
    agent = h.AgentBuilder().model(FunctionModel(model)).error_policy(policy).build()
    result = await agent.run("go")
    assert result.output == "finally"
    assert [d.outcome for d in result.decisions.at(h.ON_ERROR)] == ["retry", "retry"]


async def test_retry_all_gives_up_after_its_budget() -> None:
    def model(request: h.ModelRequest) -> h.ModelResponse:
        raise RuntimeError("down")

    policy = h.ErrorPolicy.retry_all(2)
    policy.backoff = 0.0
    result = (
        await h.AgentBuilder().model(FunctionModel(model)).error_policy(policy).build().run("x")
    )
    assert result.stop_reason == "retry_limit"
    assert len(result.decisions.at(h.ON_ERROR)) == 3


def test_backoff_is_exponential_capped_and_jittered() -> None:
    policy = h.ErrorPolicy(backoff=1.0, max_backoff=5.0, jitter=False)
    assert [policy.delay(n) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]
    jittered = h.ErrorPolicy(backoff=1.0, max_backoff=5.0)
    assert all(0 <= jittered.delay(3) <= 4.0 for _ in range(50))


def test_presets_match_their_names() -> None:
    assert set(h.ErrorPolicy.stop_on_any_error().decisions.values()) == {"stop"}
    retry_tools = h.ErrorPolicy.retry_tool_errors(3).decisions
    assert retry_tools["tool"] == "retry" and retry_tools["model"] == "stop"
    assert h.ErrorPolicy.ignore_tool_errors().decisions["tool"] == "ignore"
    assert h.ErrorPolicy.retry_all(5).decisions["hook"] == "stop"  # contract errors never retry


@pytest.mark.parametrize(
    "kwargs",
    [{"decisions": {"tools": "stop"}}, {"decisions": {"tool": "explode"}}, {"max_retries": -1}],
)
def test_bad_policies_are_config_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(h.ConfigError, match="ErrorPolicy"):
        h.ErrorPolicy(**kwargs)  # type: ignore[arg-type]


def test_a_providers_retry_after_is_honoured_up_to_the_cap() -> None:
    policy = h.ErrorPolicy(backoff=1.0, max_backoff=5.0, jitter=False)
    assert policy.delay(1, 2.5) == 2.5
    assert policy.delay(1, 90) == 5.0
    assert policy.delay(2, None) == 2.0


def test_a_client_side_model_timeout_is_classed_as_a_timeout() -> None:
    from hookagent.kernel._failures import classify

    error = h.ModelError("slow", provider="p", model="m", timed_out=True)
    assert classify(error) == "timeout"
    assert classify(h.ModelError("x", provider="p", model="m", status=504)) == "timeout"
    assert classify(h.ModelError("x", provider="p", model="m")) == "model"

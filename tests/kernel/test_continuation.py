"""Stop hooks, forced continuation, retries, and the budgets that bound them."""

from __future__ import annotations

import hookagent as h
from hookagent.testing import reply, tool_call

from .helpers import builder


async def test_a_stop_hook_that_blocks_makes_the_model_continue_with_the_reason() -> None:
    b, model = builder(reply("done?"), tool_call("echo", text="tests"), reply("done, tested"))
    seen: list[bool] = []

    def require_tests(event: h.StopEvent) -> h.HookResult | None:
        seen.append(event.stop_hook_active)
        ran_tests = any(e.name == "echo" for s in event.run.steps for e in s.executions)
        return None if ran_tests else h.HookResult.block("run the tests before finishing")

    result = await b.on(h.STOP, require_tests).build().run("fix it")
    model.assert_consumed()
    assert result.status == "completed"
    assert result.output == "done, tested"
    assert model.calls[1].last_message == "run the tests before finishing"
    assert seen == [False, False]  # the tool call in between reset the streak


async def test_stop_hook_active_is_true_while_continuing_because_of_a_stop_hook() -> None:
    b, _ = builder(reply("a"), reply("b"), reply("c"))
    seen: list[bool] = []

    def twice(event: h.StopEvent) -> h.HookResult | None:
        seen.append(event.stop_hook_active)
        return h.HookResult.block("again") if len(seen) < 3 else None

    result = await b.on(h.STOP, twice).build().run("go")
    assert seen == [False, True, True]
    assert result.output == "c"


async def test_the_stop_block_budget_ends_a_run_that_would_never_stop() -> None:
    b, model = builder(*[reply(f"try {i}") for i in range(4)])
    b.budgets(stop_blocks=3).on(h.STOP, lambda e: h.HookResult.block("never"))
    result = await b.build().run("go")
    model.assert_consumed()
    assert result.status == "stopped"
    assert result.stop_reason == "retry_limit"
    assert "3 consecutive stop-blocks" in (result.stop_message or "")


async def test_default_stop_block_budget_is_eight() -> None:
    b, model = builder(*[reply("x") for _ in range(9)])
    result = await b.on(h.STOP, lambda e: h.HookResult.block("no")).build().run("go")
    model.assert_consumed()
    assert len(result.decisions.at(h.STOP)) == 9
    assert result.stop_reason == "retry_limit"


async def test_should_continue_can_force_another_step_with_a_message() -> None:
    b, model = builder(reply("first"), reply("second"))
    count = 0

    def once_more(event: h.ContinueEvent) -> h.HookResult | None:
        nonlocal count
        count += 1
        return (
            h.HookResult.continue_("review", "Now double-check your answer.")
            if count == 1
            else None
        )

    result = await b.on(h.SHOULD_CONTINUE, once_more).build().run("go")
    assert result.output == "second"
    assert model.calls[1].last_message == "Now double-check your answer."


async def test_after_inference_retry_sends_feedback_to_the_model() -> None:
    b, model = builder(reply("no json here"), reply('{"ok": true}'))

    def want_json(event: h.InferenceResultEvent) -> h.HookResult | None:
        if event.response.message.content.startswith("{"):
            return None
        return h.HookResult.retry("not JSON", "Answer with a JSON object.")

    result = await b.on(h.AFTER_INFERENCE, want_json).build().run("go")
    model.assert_consumed()
    assert result.output == '{"ok": true}'
    assert model.calls[1].last_message == "Answer with a JSON object."
    assert len(result.steps) == 1


async def test_after_inference_retries_are_bounded() -> None:
    b, model = builder(*[reply("bad") for _ in range(3)])
    b.budgets(retries=2).on(h.AFTER_INFERENCE, lambda e: h.HookResult.retry("bad"))
    result = await b.build().run("go")
    model.assert_consumed()
    assert result.stop_reason == "retry_limit"
    assert "retry budget" in (result.stop_message or "")


async def test_after_tool_retry_runs_the_tool_again_within_budget() -> None:
    calls = 0

    @h.tool
    def flaky() -> str:
        """Succeed on the third call."""
        nonlocal calls
        calls += 1
        return "ok" if calls >= 3 else "temporary failure"

    def retry_failures(event: h.ToolResultEvent) -> h.HookResult | None:
        return h.HookResult.retry("transient") if event.result.content != "ok" else None

    from hookagent.testing import ScriptedModel

    model = ScriptedModel([tool_call("flaky"), reply("done")])
    agent = h.AgentBuilder().model(model).tools(flaky).on(h.AFTER_TOOL, retry_failures).build()
    result = await agent.run("go")
    assert calls == 3
    [execution] = result.tool_calls
    assert execution.result.content == "ok"
    assert execution.attempts == 3

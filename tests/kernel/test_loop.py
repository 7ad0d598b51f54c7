"""The loop fires every point, in order, and turns tool problems into results."""

from __future__ import annotations

import hookagent as h
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call, turn

from .helpers import Recorder, builder

LOOP_POINTS = [
    h.EXECUTION_START,
    h.USER_PROMPT,
    h.BEFORE_STEP,
    h.BEFORE_INFERENCE,
    h.AFTER_INFERENCE,
    h.BEFORE_TOOL,
    h.AFTER_TOOL,
    h.AFTER_STEP,
    h.SHOULD_CONTINUE,
    h.STOP,
    h.EXECUTION_END,
]


async def test_every_loop_point_fires_in_order() -> None:
    b, model = builder(tool_call("echo", text="hi"), reply("done"))
    recorder = Recorder()
    for point in LOOP_POINTS:
        b.on(point, recorder.at(point.name), kind="observer")
    result = await b.build().run("go")
    model.assert_consumed()
    assert result.status == "completed"
    assert recorder.names == [
        "execution_start",
        "user_prompt",
        "before_step",
        "before_inference",
        "after_inference",
        "before_tool",
        "after_tool",
        "after_step",
        "should_continue",
        "before_step",
        "before_inference",
        "after_inference",
        "after_step",
        "should_continue",
        "stop",
        "execution_end",
    ]


async def test_on_error_fires_when_the_model_fails() -> None:
    model = FunctionModel(lambda _: (_ for _ in ()).throw(RuntimeError("boom")))
    seen: list[h.ErrorEvent] = []
    agent = (
        h.AgentBuilder()
        .model(model)
        .on(h.ON_ERROR, seen.append, kind="observer", always=True)
        .build()
    )
    result = await agent.run("go")
    assert [e.where for e in seen] == ["model"]
    assert seen[0].error_class == "unknown"
    assert result.status == "failed"
    assert result.stop_reason == "error"
    assert "boom" in (result.error or "")


async def test_a_blocked_call_becomes_an_error_result_the_model_reads() -> None:
    b, model = builder(tool_call("echo", text="rm -rf /"), reply("ok, I will not"))

    def no_rm(event: h.ToolCallEvent) -> h.HookResult | None:
        return h.HookResult.block("destructive") if "rm" in event.args["text"] else None

    result = await b.on(h.BEFORE_TOOL, no_rm, match="echo").build().run("go")
    [call] = result.tool_calls
    assert call.blocked and call.result.is_error
    assert "no_rm" in call.result.content and "destructive" in call.result.content
    assert model.calls[1].last_message == call.result.content
    assert result.output == "ok, I will not"
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert (decision.outcome, decision.hook, decision.reason) == (
        "block",
        "user:no_rm",
        "destructive",
    )


async def test_a_transform_rewrites_arguments_and_the_tool_sees_them() -> None:
    b, _ = builder(tool_call("echo", text="hello"), reply("done"))

    def shout(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.modify(args={**event.args, "text": event.args["text"].upper()})

    result = await b.on(h.BEFORE_TOOL, shout, kind="transform").build().run("go")
    [call] = result.tool_calls
    assert call.result.content == "HELLO"
    assert dict(call.args) == {"text": "HELLO"}
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert decision.outcome == "modify"
    assert decision.votes[0].changes["args"]["text"] == {"before": "hello", "after": "HELLO"}


async def test_unknown_tools_and_bad_arguments_become_error_results() -> None:
    b, model = builder(
        turn(
            "",
            {"name": "nope", "args": {}},
            {"name": "add", "args": {"a": "x"}},
            {"name": "echo", "args": "{not json"},
            {"name": "echo", "args": "[1]"},
        ),
        reply("sorry"),
    )
    result = await b.build().run("go")
    model.assert_consumed()
    texts = [c.result.content for c in result.tool_calls]
    assert all(c.result.is_error for c in result.tool_calls)
    assert "Unknown tool 'nope'" in texts[0] and "add, echo" in texts[0]
    assert "Invalid arguments for tool 'add'" in texts[1]
    assert "a:" in texts[1] and "b:" in texts[1]
    assert "not valid JSON" in texts[2]
    assert "must be a JSON object" in texts[3]
    assert result.status == "completed"


async def test_a_tool_that_raises_reports_the_error_to_the_model_by_default() -> None:
    @h.tool
    def explode() -> str:
        """Fail."""
        raise ValueError("kaput")

    model = ScriptedModel([tool_call("explode"), reply("noted")])
    result = await h.AgentBuilder().model(model).tools(explode).build().run("go")
    [call] = result.tool_calls
    assert call.result.is_error
    assert "ValueError: kaput" in call.result.content
    assert result.status == "completed"
    assert result.decisions.at(h.ON_ERROR)[0].outcome == "continue"


async def test_context_reaches_the_model_next_to_the_tool_result() -> None:
    b, model = builder(tool_call("echo", text="a"), reply("done"))
    b.on(h.AFTER_TOOL, lambda e: h.HookResult.context("lint: 2 warnings"), kind="observer")
    await b.build().run("go")
    assert "lint: 2 warnings" in (model.calls[1].last_message or "")
    assert "<system-reminder>" in (model.calls[1].last_message or "")


async def test_user_prompt_can_be_rewritten_or_blocked() -> None:
    b, model = builder(reply("hi"))
    b.on(h.USER_PROMPT, lambda e: h.HookResult.modify(prompt=e.prompt + "!"), kind="transform")
    result = await b.build().run("hello")
    assert model.calls[0].last_message == "hello!"
    assert result.status == "completed"

    b2, model2 = builder()
    b2.on(h.USER_PROMPT, lambda e: h.HookResult.block("no secrets in prompts"))
    blocked = await b2.build().run("my password is hunter2")
    assert blocked.status == "stopped"
    assert blocked.stop_reason == "guard"
    assert "no secrets in prompts" in (blocked.stop_message or "")
    assert model2.calls == []


async def test_a_stop_from_any_point_ends_the_run_cleanly() -> None:
    b, model = builder(tool_call("echo", text="a"), reply("unreached"))
    b.on(h.AFTER_TOOL, lambda e: h.HookResult.stop("enough"))
    result = await b.build().run("go")
    assert result.status == "stopped"
    assert result.stop_reason == "hook_stop"
    assert "enough" in (result.stop_message or "")
    assert model.remaining == 1


async def test_before_inference_can_answer_without_calling_the_model() -> None:
    model = ScriptedModel([])
    cached = reply("from cache")
    agent = (
        h.AgentBuilder()
        .model(model)
        .on(h.BEFORE_INFERENCE, lambda e: h.HookResult.modify(response=cached), kind="transform")
        .build()
    )
    result = await agent.run("go")
    assert result.output == "from cache"
    assert model.calls == []


async def test_metadata_changes_from_hooks_land_in_the_run_state() -> None:
    b, _ = builder(reply("done"))
    b.on(h.AFTER_STEP, lambda e: h.HookResult.modify(metadata={"seen": e.step}), kind="transform")
    result = await b.build().run("go", metadata={"user": "ann"})
    assert result.state.metadata == {"user": "ann", "seen": 1}


async def test_hooks_cannot_change_arguments_behind_the_records_back() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))

    def sneaky(event: h.ToolCallEvent) -> None:
        event.args["text"] = "changed"  # type: ignore[index]

    result = await b.on(h.BEFORE_TOOL, sneaky, kind="observer").build().run("go")
    assert result.tool_calls[0].result.content == "hi"
    assert "TypeError" in (result.decisions.at(h.BEFORE_TOOL)[0].votes[0].error or "")


async def test_calls_that_cannot_run_never_reach_tool_hooks() -> None:
    b, _ = builder(turn("", {"name": "nope"}, {"name": "echo", "args": "{bad"}), reply("ok"))
    seen: list[str] = []
    b.on(h.BEFORE_TOOL, lambda e: seen.append(e.tool_name), kind="observer")
    b.on(h.AFTER_TOOL, lambda e: seen.append(e.tool_name), kind="observer")
    result = await b.build().run("go")
    assert seen == []
    assert [c.result.is_error for c in result.tool_calls] == [True, True]


async def test_a_tool_can_fire_a_point_through_its_run_view() -> None:
    seen: list[str] = []

    @h.tool
    async def announce(ctx: h.ToolContext) -> str:
        """Tell the hooks something."""
        event = h.NotificationEvent(run=ctx.run, kind="idle_prompt", message="hello")
        decision, _ = await ctx.run.fire(h.NOTIFICATION, event)
        return decision.outcome

    model = ScriptedModel([turn("", {"name": "announce", "args": {}}), reply("ok")])
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(announce)
        .on(
            h.NOTIFICATION,
            lambda e: seen.append(e.message) or h.HookResult.modify(metadata={"n": 1}),
        )
        .build()
    )
    result = await agent.run("go")
    assert seen == ["hello"] and result.tool_calls[0].result.content == "modify"
    assert result.state.metadata["n"] == 1
    assert result.state.agent_type == "main" and h.RunView(result.state).agent_id == result.run_id

"""`stream` and `run_sync` are views of the one async run."""

from __future__ import annotations

import pytest

import hookagent as h
from hookagent.testing import reply, tool_call

from .helpers import builder


async def test_stream_yields_steps_tool_calls_and_decisions_then_the_result() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))
    b.on(h.BEFORE_TOOL, lambda e: h.HookResult.context("careful"))
    events = [event async for event in b.build().stream("go")]
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "StepStarted"
    assert kinds[-1] == "RunFinished"
    assert "ToolStarted" in kinds and "ToolFinished" in kinds and "ModelReplied" in kinds
    decisions = [e.decision for e in events if isinstance(e, h.DecisionMade)]
    assert decisions[0].point == "before_tool" and decisions[0].outcome == "context"
    final = events[-1]
    assert isinstance(final, h.RunFinished) and final.result.output == "done"


async def test_leaving_a_stream_early_cancels_the_run() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))
    stream = b.build().stream("go")
    async for _event in stream:
        break
    await stream.aclose()  # type: ignore[attr-defined]


def test_run_sync_runs_without_a_loop() -> None:
    b, _ = builder(reply("hi"))
    assert b.build().run_sync("go").output == "hi"


async def test_run_sync_refuses_to_nest_in_a_running_loop() -> None:
    b, _ = builder(reply("hi"))
    with pytest.raises(h.ConfigError, match="running event loop"):
        b.build().run_sync("go")


async def test_a_streaming_model_reports_deltas_that_join_into_each_reply() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("All  done,\nthanks."))
    events = [event async for event in b.build().stream("go")]
    text = "".join(e.text for e in events if isinstance(e, h.TextDelta))
    assert text == "All  done,\nthanks."
    calls = [e for e in events if isinstance(e, h.ToolCallDelta)]
    assert [(c.index, c.name, c.arguments) for c in calls] == [
        (0, "echo", ""),
        (0, None, '{"text": "hi"}'),
    ]
    final = events[-1]
    assert isinstance(final, h.RunFinished) and final.result.output == "All  done,\nthanks."


async def test_a_model_without_stream_gives_whole_replies_only() -> None:
    class Plain:
        name = "plain:model"

        async def request(self, request: h.ModelRequest, /) -> h.ModelResponse:
            return h.ModelResponse(message=h.AssistantMessage(content="whole"))

    agent = h.AgentBuilder().model(Plain()).build()
    events = [event async for event in agent.stream("go")]
    assert not [e for e in events if isinstance(e, h.TextDelta | h.ToolCallDelta)]
    final = events[-1]
    assert isinstance(final, h.RunFinished) and final.result.output == "whole"


async def test_a_plain_run_never_asks_the_model_to_stream() -> None:
    class Both:
        name = "both:model"
        streamed = 0

        async def request(self, request: h.ModelRequest, /) -> h.ModelResponse:
            return h.ModelResponse(message=h.AssistantMessage(content="whole"))

        async def stream(self, request: h.ModelRequest, on_delta: object, /) -> h.ModelResponse:
            self.streamed += 1
            return await self.request(request)

    model = Both()
    assert (await h.AgentBuilder().model(model).build().run("go")).output == "whole"
    assert model.streamed == 0


async def test_a_stream_without_deltas_makes_whole_model_calls() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))
    events = [event async for event in b.build().stream("go", deltas=False)]
    assert not [e for e in events if isinstance(e, h.TextDelta | h.ToolCallDelta)]
    assert [type(e).__name__ for e in events].count("ModelReplied") == 2
    final = events[-1]
    assert isinstance(final, h.RunFinished) and final.result.output == "done"

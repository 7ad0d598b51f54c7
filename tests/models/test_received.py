"""Whatever a model returns, the run keeps a reply it can send on, print and store: checked in
the kernel for every model, not only the built-in drivers."""

from __future__ import annotations

from typing import Any

import hookagent as h
from hookagent._messages import AssistantMessage, ToolCall
from hookagent.models._base import ModelRequest, ModelResponse, TextDelta, ToolCallDelta
from hookagent.models._received import received
from hookagent.testing import FunctionModel, ScriptedModel, reply, turn

from .tools import echo


def surrogate_free(text: str) -> bool:
    return not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def calls_then_done(*calls: ToolCall) -> FunctionModel:
    """A model that builds its calls as objects (no JSON text to parse), then answers."""

    def answer(request: ModelRequest) -> ModelResponse | str:
        if len(request.messages) == 1:
            return ModelResponse(message=AssistantMessage(content="", tool_calls=calls))
        return "done"

    return FunctionModel(answer)


async def test_calls_a_model_built_as_objects_are_checked_before_any_tool_runs() -> None:
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    model = calls_then_done(
        ToolCall(id="c1", name="echo", args={"text": "a\ud800"}),
        ToolCall(id="c2", name="echo", args={"text": deep}),
        ToolCall(id="c3\udc00", name="ech\udc00o", args={"text": "x"}),
        ToolCall(id="c4", name="echo", args={"text": "fine"}),
    )
    result = await h.AgentBuilder().model(model).tools(echo).build().run("go")
    assert result.status == "completed", result.error
    c1, c2, c3, c4 = (c.result for c in result.tool_calls)
    assert c1.is_error and "lone UTF-16 surrogate (\\ud800)" in c1.content
    assert c2.is_error and "nest deeper than 100 levels" in c2.content
    assert c3.is_error and "Unknown tool 'ech\ufffdo'" in c3.content
    assert (c4.is_error, c4.content) == (False, "fine")
    assert result.tool_calls[2].call_id == "c3\ufffd"


async def test_text_with_lone_surrogates_reaches_the_run_and_the_watcher_replaced() -> None:
    model = ScriptedModel(
        [
            {"text": "look\ud800", "tool_calls": [{"name": "echo", "args": '{"text": "\\udfff"}'}]},
            {"text": "done\udc00", "reasoning": "hm\ud800"},
        ]
    )
    agent = h.AgentBuilder().model(model).tools(echo).build()
    events = [event async for event in agent.stream("go")]
    streamed = [e.text for e in events if isinstance(e, TextDelta)]
    streamed += [e.arguments for e in events if isinstance(e, ToolCallDelta)]
    assert all(surrogate_free(text) for text in streamed)
    finished = events[-1]
    assert isinstance(finished, h.RunFinished)
    assert finished.result.output == "done\ufffd"
    [call] = finished.result.tool_calls
    assert call.result.is_error and "$.text" in call.result.content


def test_a_clean_reply_is_passed_on_as_is() -> None:
    response = reply("hello")
    assert received(response) is response
    calls = turn("", {"name": "echo", "args": {"text": "x"}})
    assert received(calls) is calls
    dirty = ModelResponse(message=AssistantMessage(content="a\ud800"), model_name="m\udfff")
    cleaned = received(dirty)
    assert (cleaned.message.content, cleaned.model_name) == ("a\ufffd", "m\ufffd")

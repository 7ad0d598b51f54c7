"""Streaming through the Anthropic driver: SSE events from a local fake server, read by the
real `anthropic` SDK, reassembled into the same reply a plain request gives."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import hookagent as h
from hookagent._errors import ModelError
from hookagent._messages import UserMessage
from hookagent.models._anthropic_messages import AnthropicMessagesModel, create
from hookagent.models._base import Delta, ModelRequest, ReasoningDelta, TextDelta, ToolCallDelta

from .fake_anthropic import SSE, FakeAnthropic, events, message, text, tool_use


@h.tool
def weather(city: str) -> str:
    """Tell the weather in a city."""
    return f"sunny in {city}"


@pytest.fixture
def server() -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic().start()
    yield fake
    fake.stop()


@pytest.fixture
async def model(server: FakeAnthropic) -> AsyncIterator[AnthropicMessagesModel]:
    driver = create("claude-test", provider="anthropic", base_url=server.url, api_key="test")
    yield driver
    await driver.aclose()


def go(step: int = 1) -> ModelRequest:
    return ModelRequest(messages=[UserMessage(content="go")], step=step)


async def test_a_streamed_reply_equals_the_plain_reply_and_reports_each_piece(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    reply = message(
        text("Checking Paris."),
        tool_use("tu_1", "weather", city="Paris"),
        stop_reason="tool_use",
        input_tokens=20,
        output_tokens=9,
        cache_read=4,
    )
    server.reply(events(reply, split=5))
    server.reply(reply)
    deltas: list[Delta] = []
    streamed = await model.stream(go(2), deltas.append)
    plain = await model.request(go(2))
    assert streamed == plain
    assert [d.text for d in deltas if isinstance(d, TextDelta)] == ["Check", "ing P", "aris."]
    calls = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert calls[0] == ToolCallDelta(2, 0, "tu_1", "weather", "")
    assert "".join(d.arguments for d in calls) == '{"city": "Paris"}'
    assert streamed.usage == h.Usage(input_tokens=24, output_tokens=9, cached_tokens=4, requests=1)
    assert server.requests[0]["stream"] is True and "stream" not in server.requests[1]


async def test_streamed_thinking_is_reported_kept_and_sent_back_verbatim(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    thinking = {"type": "thinking", "thinking": "Paris, then.", "signature": "sig-123"}
    server.reply(
        events(message(thinking, tool_use("tu", "weather", city="A"), stop_reason="tool_use"))
    )
    server.reply(message(text("done")))
    deltas: list[Delta] = []
    history: list[Any] = [UserMessage(content="go")]
    first = await model.stream(ModelRequest(messages=history), deltas.append)
    assert "".join(d.text for d in deltas if isinstance(d, ReasoningDelta)) == "Paris, then."
    assert first.message.reasoning == "Paris, then."
    history += [first.message, h.ToolResultMessage(call_id="tu", name="weather", content="x")]
    await model.request(ModelRequest(messages=history))
    assistant = server.requests[1]["messages"][1]
    assert assistant["content"][0] == thinking


async def test_malformed_streamed_tool_input_becomes_a_parse_error(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    bad = {"type": "tool_use", "id": "tu", "name": "weather", "input": '{"city": "Par'}
    server.reply(events(message(bad, stop_reason="tool_use")))
    response = await model.stream(go(), lambda _: None)
    [call] = response.message.tool_calls
    assert call.parse_error and "not valid JSON" in call.parse_error and not call.args


async def test_streamed_tool_input_nested_100000_deep_becomes_a_parse_error(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    deep = {"type": "tool_use", "id": "tu", "name": "weather", "input": "[" * 100_000}
    plain = {"type": "tool_use", "id": "tv", "name": "weather", "input": '{"city": "\\ud800"}'}
    server.reply(events(message(deep, plain, stop_reason="tool_use"), split=10_000))
    response = await model.stream(go(), lambda _: None)
    first, second = response.message.tool_calls
    assert first.parse_error and "nest deeper than 100 levels" in first.parse_error
    assert second.parse_error and "$.city" in second.parse_error and not second.args


async def test_an_overloaded_error_inside_the_stream_is_transient_and_retried(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    broken = events(message(text("partial answer")))
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    broken.frames = [*broken.frames[:3], ("error", overloaded)]
    server.reply(broken)
    server.reply(events(message(text("whole answer"))))
    errors: list[BaseException] = []
    agent = (
        h.AgentBuilder()
        .model(model)
        .error_policy(h.ErrorPolicy({"model": "retry"}, max_retries=2, backoff=0.0))
        .on(h.ON_ERROR, lambda e: errors.append(e.error))
        .build()
    )
    seen = [event async for event in agent.stream("go")]
    final = seen[-1]
    assert isinstance(final, h.RunFinished) and final.result.output == "whole answer"
    [error] = errors
    assert isinstance(error, ModelError) and error.status == 529 and error.transient
    assert "overloaded_error: Overloaded" in str(error)


async def test_a_stream_without_a_stop_reason_is_an_error(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    cut = events(message(text("half")))
    server.reply(SSE(cut.frames[:3]))
    with pytest.raises(ModelError, match="stream ended before the reply was finished"):
        await model.stream(go(), lambda _: None)


async def test_a_full_streamed_run_with_a_guard_hook(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    server.reply(
        events(
            message(
                tool_use("tu_1", "weather", city="Paris"),
                tool_use("tu_2", "weather", city="Xy"),
                stop_reason="tool_use",
            )
        )
    )
    server.reply(events(message(text("Paris is sunny."))))

    def guard(event: h.ToolCallEvent) -> h.HookResult | None:
        return h.HookResult.block("classified") if event.args["city"] == "Xy" else None

    agent = h.AgentBuilder().model(model).tools(weather).on(h.BEFORE_TOOL, guard).build()
    seen = [event async for event in agent.stream("weather?")]
    final = seen[-1]
    assert isinstance(final, h.RunFinished) and final.result.output == "Paris is sunny."
    results = server.requests[1]["messages"][-1]["content"]
    assert results[0]["content"] == "sunny in Paris"
    assert results[1]["is_error"] is True and "classified" in results[1]["content"]

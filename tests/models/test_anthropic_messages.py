"""The Anthropic driver, with the real SDK talking to a local fake server (no network)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import hookagent as h
from hookagent._messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    UserMessage,
)
from hookagent.models._anthropic_messages import (
    AnthropicMessagesModel,
    create,
)
from hookagent.models._base import ModelRequest
from hookagent.policies._error_policy import ErrorPolicy

from .fake_anthropic import FakeAnthropic, error, message, text, tool_use


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


@h.tool
def weather(city: str) -> str:
    """Tell the weather in a city."""
    return f"sunny in {city}"


def guard(event: h.ToolCallEvent) -> h.HookResult | None:
    return h.HookResult.block("that city is classified") if event.args["city"] == "Xy" else None


def agent(model: AnthropicMessagesModel, **policy: Any) -> h.Agent:
    builder = (
        h.AgentBuilder()
        .model(model)
        .system_prompt("You are terse.")
        .tools(weather)
        .on(h.BEFORE_TOOL, guard, match="weather", name="guard")
    )
    if policy:
        builder = builder.error_policy(ErrorPolicy(**policy))
    return builder.build()


def two_calls_then_answer(server: FakeAnthropic) -> None:
    server.reply(
        message(
            text("Checking."),
            tool_use("tu_1", "weather", city="Paris"),
            tool_use("tu_2", "weather", city="Xy"),
            stop_reason="tool_use",
            input_tokens=20,
            output_tokens=7,
        )
    )
    server.reply(message(text("Sunny in Paris."), input_tokens=30, output_tokens=4, cache_read=12))


async def test_a_run_with_two_tool_calls_sends_alternating_turns(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    two_calls_then_answer(server)
    result = await agent(model).run("Weather in Paris and Xy?")
    assert result.status == "completed", result.error
    assert result.output == "Sunny in Paris."
    first, second = server.requests
    assert first["model"] == "claude-test" and first["max_tokens"] == 4096
    assert first["system"] == "You are terse."
    assert first["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Xy?"}]}
    ]
    [tool] = first["tools"]
    assert tool["name"] == "weather" and tool["description"] == "Tell the weather in a city."
    assert tool["input_schema"]["properties"]["city"]["type"] == "string"

    roles = [m["role"] for m in second["messages"]]
    assert roles == ["user", "assistant", "user"]
    assert second["messages"][1]["content"] == [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "tu_1", "name": "weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "tu_2", "name": "weather", "input": {"city": "Xy"}},
    ]
    ok, blocked = second["messages"][2]["content"]  # both results in ONE user message
    assert ok["type"] == blocked["type"] == "tool_result"
    assert (ok["tool_use_id"], ok["content"]) == ("tu_1", "sunny in Paris")
    assert not ok.get("is_error")
    assert blocked["tool_use_id"] == "tu_2" and blocked["is_error"] is True
    assert "classified" in blocked["content"]

    assert result.usage == h.Usage(input_tokens=62, output_tokens=11, cached_tokens=12, requests=2)
    # incremental: each message converted once (the final answer is never sent back)
    assert model.converter.converted == len(result.state.messages) - 1
    assert model.converter.rebuilds == 0


async def test_rate_limit_with_retry_after_is_retried_by_the_error_policy(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    server.reply(error("rate_limit_error", "slow down"), status=429, headers={"retry-after": "0"})
    two_calls_then_answer(server)
    policy = {"decisions": {"rate_limit": "retry"}, "max_retries": 2, "backoff": 0}
    result = await agent(model, **policy).run("Weather?")
    assert result.status == "completed", result.error
    assert len(server.requests) == 3  # the SDK itself never retried
    assert server.requests[0]["messages"] == server.requests[1]["messages"]
    assert result.usage.requests == 2


async def test_a_429_carries_retry_after_and_classifies_as_rate_limit(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    from hookagent.kernel._failures import classify

    server.reply(error("rate_limit_error", "slow down"), status=429, headers={"retry-after": "7"})
    with pytest.raises(h.ModelError) as caught:
        await model.request(ModelRequest(messages=[UserMessage(content="hi")]))
    exc = caught.value
    assert (exc.provider, exc.model, exc.status, exc.retry_after) == (
        "anthropic",
        "claude-test",
        429,
        7.0,
    )
    assert "slow down" in str(exc)
    assert classify(exc) == "rate_limit"


async def test_a_server_error_then_success_is_retried(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    server.reply(error("api_error", "boom"), status=500)
    two_calls_then_answer(server)
    policy = {"decisions": {"model": "retry"}, "max_retries": 2, "backoff": 0}
    result = await agent(model, **policy).run("Weather?")
    assert result.status == "completed", result.error
    assert len(server.requests) == 3


async def test_a_bad_key_fails_clearly_without_retry(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    server.reply(error("authentication_error", "invalid x-api-key"), status=401)
    policy = {"decisions": {"rate_limit": "retry"}, "max_retries": 2, "backoff": 0}
    result = await agent(model, **policy).run("Weather?")
    assert result.status == "failed"
    assert "anthropic:claude-test (HTTP 401): invalid x-api-key" in (result.error or "")
    assert len(server.requests) == 1


async def test_a_connection_error_has_no_status() -> None:
    driver = create("claude-test", provider="anthropic", base_url="http://127.0.0.1:9", api_key="k")
    try:
        with pytest.raises(h.ModelError) as caught:
            await driver.request(ModelRequest(messages=[UserMessage(content="hi")]))
    finally:
        await driver.aclose()
    assert caught.value.status is None and caught.value.provider == "anthropic"


def test_a_missing_key_is_a_config_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(h.ConfigError, match="ANTHROPIC_API_KEY"):
        create("claude-test", provider="anthropic", base_url=None, api_key=None)


async def test_key_and_base_url_come_from_the_environment(
    server: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    driver = h.AgentBuilder().model("anthropic:claude-test").build()
    server.reply(message(text("hi")))
    try:
        result = await driver.run("hello")
    finally:
        await driver.model.aclose()  # type: ignore[attr-defined]
    assert result.output == "hi"
    sent = server.headers[0]
    assert "env-key" in (sent.get("x-api-key") or sent.get("authorization") or "")


async def test_settings_and_system_messages_reach_the_wire(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    server.reply(message(text("ok")))
    history: list[Message] = [
        SystemMessage(content="Be brief."),
        UserMessage(content="hi"),
        AssistantMessage(content=""),  # an empty turn is dropped, not sent empty
        UserMessage(content="<system-reminder>x</system-reminder>", synthetic=True),
    ]
    settings = {"max_tokens": 99, "temperature": 0.5}
    request = ModelRequest(messages=history, system_prompt="Root.", settings=settings)
    response = await model.request(request)
    [body] = server.requests
    assert body["system"] == "Root.\n\nBe brief."
    assert (body["max_tokens"], body["temperature"]) == (99, 0.5)
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "text", "text": "<system-reminder>x</system-reminder>"},
            ],
        }
    ]
    assert "tools" not in body
    assert (response.finish_reason, response.model_name) == ("end_turn", "claude-test-20250101")


async def test_a_reminder_after_tool_results_joins_their_user_message(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    server.reply(message(text("ok")))
    history: list[Message] = [
        UserMessage(content="go"),
        AssistantMessage(tool_calls=(ToolCall(id="a", name="t"), ToolCall(id="b", name="t"))),
        h.ToolResultMessage(call_id="a", name="t", content="1"),
        h.ToolResultMessage(call_id="b", name="t", content="2", is_error=True),
        UserMessage(content="remember", synthetic=True),
    ]
    await model.request(ModelRequest(messages=history))
    last = server.requests[0]["messages"][-1]
    assert [b["type"] for b in last["content"]] == ["tool_result", "tool_result", "text"]
    assert len(server.requests[0]["messages"]) == 3


async def test_conversion_is_incremental_and_rebuilds_when_history_changes(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    for _ in range(4):
        server.reply(message(text("ok")))
    history: list[Any] = [UserMessage(content="one")]
    await model.request(ModelRequest(messages=history))
    history += [AssistantMessage(content="ok"), UserMessage(content="two")]
    await model.request(ModelRequest(messages=history))
    assert (model.converter.converted, model.converter.rebuilds) == (3, 0)
    history[0] = UserMessage(content="compacted")  # same length, different object
    await model.request(ModelRequest(messages=history))
    assert (model.converter.converted, model.converter.rebuilds) == (6, 1)
    await model.request(ModelRequest(messages=history[:1]))  # shrank
    assert (model.converter.converted, model.converter.rebuilds) == (7, 2)
    assert server.requests[2]["messages"][0]["content"][0]["text"] == "compacted"
    assert server.requests[3]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "compacted"}]}
    ]


async def test_thinking_blocks_are_sent_back_with_the_reply_they_came_with(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    thinking = {"type": "thinking", "thinking": "hmm", "signature": "sig"}
    server.reply(message(thinking, tool_use("tu", "weather", city="A"), stop_reason="tool_use"))
    server.reply(message(text("done")))
    history: list[Any] = [UserMessage(content="go")]
    first = await model.request(ModelRequest(messages=history))
    assert first.message.tool_calls == (ToolCall(id="tu", name="weather", args={"city": "A"}),)
    history += [first.message, h.ToolResultMessage(call_id="tu", name="weather", content="x")]
    await model.request(ModelRequest(messages=history))
    assistant = server.requests[1]["messages"][1]
    assert assistant["content"][0] == thinking
    assert assistant["content"][1]["type"] == "tool_use"


async def test_a_tool_input_that_is_not_an_object_is_a_parse_error(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    bad = {"type": "tool_use", "id": "tu", "name": "weather", "input": ["Paris"]}
    server.reply(message(bad, stop_reason="tool_use"))
    response = await model.request(ModelRequest(messages=[UserMessage(content="go")]))
    [call] = response.message.tool_calls
    assert call.parse_error and "JSON object" in call.parse_error and not call.args


async def test_a_tool_input_object_with_a_lone_surrogate_is_a_parse_error(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    bad = {"type": "tool_use", "id": "tu", "name": "weather", "input": {"city": "\ud800"}}
    server.reply(message(bad, stop_reason="tool_use"))
    response = await model.request(ModelRequest(messages=[UserMessage(content="go")]))
    [call] = response.message.tool_calls
    assert call.parse_error and "the string at $.city" in call.parse_error and not call.args


@pytest.mark.parametrize("depth", [150, 100_000])
async def test_a_tool_input_too_deep_to_read_refuses_that_call_and_the_run_goes_on(
    server: FakeAnthropic, model: AnthropicMessagesModel, depth: int
) -> None:
    deep = "[" * depth + "]" * depth
    reply = message(
        text("Checking."),
        tool_use("tu_1", "weather", city="PLACE"),
        tool_use("tu_2", "weather", city="Paris"),
        stop_reason="tool_use",
    )
    server.reply(json.dumps(reply).replace('"PLACE"', deep).encode())
    server.reply(message(text("Sunny.")))
    result = await agent(model).run("Weather?")
    assert (result.status, result.output) == ("completed", "Sunny.")
    refused, ran = result.tool_calls
    assert refused.result.is_error and "nest deeper than 100 levels" in refused.result.content
    assert ran.result.content == "sunny in Paris"  # the reply's other call was made
    assert len(server.requests) == 2  # no retry: the reply was read
    sent = server.requests[1]["messages"][2]["content"]
    assert "nest deeper than 100 levels" in sent[0]["content"]  # the model read why


async def test_a_reply_that_is_not_a_json_object_is_a_transient_model_error(
    server: FakeAnthropic, model: AnthropicMessagesModel
) -> None:
    server.reply(b"[1, 2]")
    with pytest.raises(h.ModelError, match="the reply is not a JSON object") as caught:
        await model.request(ModelRequest(messages=[UserMessage(content="go")]))
    assert caught.value.transient

"""The Chat Completions driver against a local fake server, through the real `openai` SDK."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import hookagent as h
from hookagent._messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from hookagent.models._base import ModelRequest
from hookagent.models._openai_chat import OpenAIChatModel, ProviderError, create
from hookagent.models._resolve import resolve_model

from .fake_openai import FakeOpenAI, completion, function_call
from .tools import add, echo, explode


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def model(server: FakeOpenAI) -> AsyncIterator[OpenAIChatModel]:
    driver = create("gpt-test", provider="openai-compatible", base_url=server.url, api_key=None)
    yield driver
    await driver.aclose()


def agent(model: OpenAIChatModel, **kwargs: Any) -> h.AgentBuilder:
    builder = h.AgentBuilder().model(model).tools(add, echo, explode)
    if "policy" in kwargs:
        builder = builder.error_policy(kwargs["policy"])
    return builder


async def test_a_tool_turn_then_an_answer_round_trips_on_the_wire(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(
        completion(
            "Let me compute.",
            function_call("call_a", "add", {"a": 2, "b": 3}),
            function_call("call_b", "echo", {"text": "hi"}),
            prompt_tokens=100,
            completion_tokens=20,
            cached_tokens=40,
        )
    )
    server.push(completion("2+3=5 and hi", prompt_tokens=150, completion_tokens=8))
    seen: list[tuple[str, dict[str, Any]]] = []

    def watch(event: h.ToolCallEvent) -> None:
        seen.append((event.tool_name, dict(event.args)))

    result = await (
        agent(model)
        .system_prompt("You are terse.")
        .settings(temperature=0.0, max_tokens=64)
        .on(h.BEFORE_TOOL, watch)
        .build()
        .run("add 2 and 3, echo hi")
    )

    assert result.status == "completed", result.error
    assert result.output == "2+3=5 and hi"
    assert seen == [("add", {"a": 2, "b": 3}), ("echo", {"text": "hi"})]
    first, second = server.requests
    assert first["model"] == "gpt-test"
    assert first["temperature"] == 0.0 and first["max_tokens"] == 64
    assert first["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "add 2 and 3, echo hi"},
    ]
    tools = {t["function"]["name"]: t for t in first["tools"]}
    assert set(tools) == {"add", "echo", "explode"}
    assert tools["add"]["type"] == "function"
    assert tools["add"]["function"]["description"] == "Add two integers."
    assert tools["add"]["function"]["parameters"]["properties"].keys() == {"a", "b"}
    # The second request only appends to the first.
    assert second["messages"][:2] == first["messages"]
    assert second["messages"][2:] == [
        {
            "role": "assistant",
            "content": "Let me compute.",
            "tool_calls": [
                function_call("call_a", "add", {"a": 2, "b": 3}),
                function_call("call_b", "echo", {"text": "hi"}),
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": "5"},
        {"role": "tool", "tool_call_id": "call_b", "content": "hi"},
    ]
    # Each neutral message was converted once: user, assistant, two tool results.
    assert model.conversions == 4
    assert result.usage == h.Usage(input_tokens=250, output_tokens=28, cached_tokens=40, requests=2)
    assert server.paths == ["/v1/chat/completions"] * 2


async def test_a_failing_tool_reaches_the_model_as_an_error_result(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(completion(None, function_call("call_x", "explode", {"reason": "bad"})))
    server.push(completion("it failed, sorry"))
    result = await agent(model).build().run("go")
    assert result.output == "it failed, sorry"
    [call] = result.tool_calls
    assert call.result.is_error
    assert "exploded: bad" in call.result.content
    assistant, tool = server.requests[1]["messages"][1:]
    assert assistant["content"] is None and assistant["tool_calls"][0]["id"] == "call_x"
    assert tool["tool_call_id"] == "call_x"
    assert "exploded: bad" in tool["content"]


@pytest.mark.parametrize("arguments", ['{"a": 1, "b":', "[1, 2]"])
async def test_malformed_arguments_become_an_error_result_not_a_crash(
    server: FakeOpenAI, model: OpenAIChatModel, arguments: str
) -> None:
    server.push(completion(None, function_call("call_m", "add", arguments)))
    server.push(completion("I will fix my arguments"))
    result = await agent(model).build().run("go")
    assert result.status == "completed", result.error
    [call] = result.tool_calls
    assert call.result.is_error
    sent = server.requests[1]["messages"]
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert sent[2]["role"] == "tool" and sent[2]["tool_call_id"] == "call_m"
    assert "JSON" in sent[2]["content"]


async def test_parse_errors_are_reported_on_the_tool_call(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(
        completion(
            None,
            function_call("c1", "add", "not json"),
            function_call("c2", "add", '"a string"'),
            function_call("c3", "add", ""),
        )
    )
    response = await model.request(ModelRequest(messages=[UserMessage(content="go")]))
    c1, c2, c3 = response.message.tool_calls
    assert c1.parse_error and "not valid JSON" in c1.parse_error and not c1.args
    assert c2.parse_error and "got str" in c2.parse_error
    assert c3 == ToolCall(id="c3", name="add")
    assert response.finish_reason == "tool_calls"
    assert response.model_name == "gpt-test"


async def test_a_rate_limit_with_retry_after_is_retried(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push_error(429, "Rate limit reached", headers={"Retry-After": "7"})
    server.push(completion("done"))
    errors: list[BaseException] = []
    policy = h.ErrorPolicy({"rate_limit": "retry"}, max_retries=2, max_backoff=0.0)
    result = await (
        agent(model, policy=policy)
        .on(h.ON_ERROR, lambda event: errors.append(event.error))
        .build()
        .run("go")
    )
    assert result.output == "done"
    [error] = errors
    assert isinstance(error, ProviderError)
    assert (error.status, error.retry_after) == (429, 7.0)
    assert "Rate limit reached" in str(error)
    assert len(server.requests) == 2


async def test_a_server_error_is_retried_by_a_policy_that_says_so(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push_error(500, "The server had an error")
    server.push(completion("recovered"))
    policy = h.ErrorPolicy({"model": "retry"}, max_retries=1)
    result = await agent(model, policy=policy).build().run("go")
    assert result.output == "recovered"
    assert [d.outcome for d in result.decisions.at(h.ON_ERROR)] == ["retry"]


async def test_an_auth_error_fails_the_run_clearly_without_retry(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push_error(401, "Incorrect API key provided", kind="invalid_request_error")
    result = await agent(model).build().run("go")
    assert (result.status, result.stop_reason) == ("failed", "error")
    error = result.error or ""
    assert "openai-compatible:gpt-test" in error
    assert "HTTP 401" in error and "Incorrect API key provided" in error
    assert len(server.requests) == 1


async def test_a_connection_failure_is_a_model_error_without_status() -> None:
    with FakeOpenAI() as fake:
        url = fake.url
    driver = create("m", provider="openai-compatible", base_url=url, api_key="k")
    try:
        with pytest.raises(ProviderError, match="connection failed") as info:
            await driver.request(ModelRequest(messages=[UserMessage(content="hi")]))
    finally:
        await driver.aclose()
    assert info.value.status is None and info.value.retry_after is None


async def test_conversion_is_incremental_and_rebuilds_for_a_new_history(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    for _ in range(3):
        server.push(completion("ok"))
    history: list[Any] = [UserMessage(content="one")]
    await model.request(ModelRequest(messages=history))
    call = ToolCall(id="t1", name="echo", args={"text": "x"})
    history += [
        AssistantMessage(tool_calls=(call,)),
        ToolResultMessage(call_id="t1", name="echo", content="boom", is_error=True),
    ]
    await model.request(ModelRequest(messages=history))
    assert model.conversions == 3
    await model.request(ModelRequest(messages=[UserMessage(content="other run")]))
    assert model.conversions == 4
    assert server.requests[2]["messages"] == [{"role": "user", "content": "other run"}]
    assert "tools" not in server.requests[0]
    assert server.requests[1]["messages"][2] == {
        "role": "tool",
        "tool_call_id": "t1",
        "content": "boom",
    }


async def test_unknown_settings_go_to_the_server_in_the_body(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(completion("ok"))
    request = ModelRequest(
        messages=[UserMessage(content="hi")], settings={"top_k": 20, "temperature": 0.5}
    )
    await model.request(request)
    assert server.requests[0]["top_k"] == 20 and server.requests[0]["temperature"] == 0.5
    with pytest.raises(h.ConfigError, match="'stream'"):
        await model.request(ModelRequest(messages=[], settings={"stream": True}))


def test_openai_needs_its_key_at_create_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(h.ConfigError, match="OPENAI_API_KEY"):
        create("gpt-4.1", provider="openai", base_url=None, api_key=None)
    with pytest.raises(h.ConfigError, match="OPENAI_API_KEY"):
        resolve_model("openai:gpt-4.1")


async def test_openai_reads_key_and_base_url_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, server: FakeOpenAI
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    driver = resolve_model("openai:gpt-4.1")
    assert isinstance(driver, OpenAIChatModel) and driver.name == "openai:gpt-4.1"
    server.push(completion("hello"))
    try:
        response = await driver.request(ModelRequest(messages=[UserMessage(content="hi")]))
    finally:
        await driver.aclose()
    assert response.message.content == "hello"
    assert server.headers[0]["authorization"] == "Bearer sk-env"


def test_compatible_needs_a_base_url_but_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HOOKAGENT_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "HOOKAGENT_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(h.ConfigError, match="HOOKAGENT_BASE_URL or OPENAI_BASE_URL"):
        create("llama", provider="openai-compatible", base_url=None, api_key=None)
    monkeypatch.setenv("HOOKAGENT_BASE_URL", "http://127.0.0.1:9/v1")
    driver = create("llama", provider="openai-compatible", base_url=None, api_key=None)
    assert driver.name == "openai-compatible:llama"
    assert driver.client.api_key == "not-needed"
    assert str(driver.client.base_url).startswith("http://127.0.0.1:9/v1")

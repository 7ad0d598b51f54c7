"""The Responses API driver against a local fake server, through the real `openai` SDK."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import hookagent as h
from hookagent._messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from hookagent.models._base import (
    Delta,
    ModelRequest,
    OutputSpec,
    ReasoningDelta,
    StreamingModel,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
)
from hookagent.models._openai_responses import OpenAIResponsesModel, ProviderError, create
from hookagent.models._resolve import resolve_model

from .fake_responses import (
    FakeResponses,
    events_for,
    function_call,
    message,
    reasoning,
    response,
)
from .tools import add, echo, explode


@pytest.fixture
def server() -> Iterator[FakeResponses]:
    with FakeResponses() as fake:
        yield fake


@pytest.fixture
async def model(server: FakeResponses) -> AsyncIterator[OpenAIResponsesModel]:
    driver = create("gpt-test", base_url=server.url, api_key="sk-test")
    yield driver
    await driver.aclose()


def agent(model: OpenAIResponsesModel, policy: h.ErrorPolicy | None = None) -> h.AgentBuilder:
    builder = h.AgentBuilder().model(model).tools(add, echo, explode)
    if policy is not None:
        builder = builder.error_policy(policy)
    return builder


def ask(text: str = "hi", **kwargs: Any) -> ModelRequest:
    return ModelRequest(messages=[UserMessage(content=text)], **kwargs)


async def test_a_text_answer(server: FakeResponses, model: OpenAIResponsesModel) -> None:
    server.push(response(message("Hello there."), input_tokens=12, output_tokens=3))
    reply = await model.request(ask("hi", settings={"temperature": 0.2, "max_tokens": 50}))
    assert reply.message == AssistantMessage(content="Hello there.")
    assert reply.finish_reason == "completed" and reply.model_name == "gpt-test"
    assert reply.usage == h.Usage(input_tokens=12, output_tokens=3, requests=1)
    [sent] = server.requests
    assert sent["model"] == "gpt-test" and sent["store"] is False
    assert sent["input"] == [{"role": "user", "content": "hi"}]
    assert sent["temperature"] == 0.2 and sent["max_output_tokens"] == 50
    assert "max_tokens" not in sent and "include" not in sent and "text" not in sent
    assert "tools" not in sent and "instructions" not in sent
    assert server.paths == ["/v1/responses"]
    assert model.name == "openai-responses:gpt-test"
    assert isinstance(model, StreamingModel) and model.native_output is True


async def test_a_tool_turn_then_an_answer_round_trips_on_the_wire(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push(
        response(
            message("Let me compute."),
            function_call("call_a", "add", {"a": 2, "b": 3}),
            function_call("call_b", "echo", {"text": "hi"}),
            input_tokens=100,
            output_tokens=20,
            cached_tokens=40,
        )
    )
    server.push(response(message("2+3=5 and hi"), input_tokens=150, output_tokens=8))
    seen: list[tuple[str, dict[str, Any]]] = []

    def watch(event: h.ToolCallEvent) -> None:
        seen.append((event.tool_name, dict(event.args)))

    result = await (
        agent(model)
        .system_prompt("You are terse.")
        .settings(temperature=0.0)
        .on(h.BEFORE_TOOL, watch)
        .build()
        .run("add 2 and 3, echo hi")
    )

    assert result.status == "completed", result.error
    assert result.output == "2+3=5 and hi"
    assert seen == [("add", {"a": 2, "b": 3}), ("echo", {"text": "hi"})]
    first, second = server.requests
    assert first["instructions"] == second["instructions"] == "You are terse."
    assert first["input"] == [{"role": "user", "content": "add 2 and 3, echo hi"}]
    tools = {t["name"]: t for t in first["tools"]}
    assert set(tools) == {"add", "echo", "explode"}
    assert tools["add"]["type"] == "function" and tools["add"]["strict"] is False
    assert tools["add"]["description"] == "Add two integers."
    assert tools["add"]["parameters"]["properties"].keys() == {"a", "b"}
    # The second request only appends to the first.
    assert second["input"][:1] == first["input"]
    assert second["input"][1:] == [
        {"role": "assistant", "content": "Let me compute."},
        {
            "type": "function_call",
            "call_id": "call_a",
            "name": "add",
            "arguments": '{"a": 2, "b": 3}',
        },
        {
            "type": "function_call",
            "call_id": "call_b",
            "name": "echo",
            "arguments": '{"text": "hi"}',
        },
        {"type": "function_call_output", "call_id": "call_a", "output": "5"},
        {"type": "function_call_output", "call_id": "call_b", "output": "hi"},
    ]
    # Each neutral message was converted once: user, assistant, two tool results, final.
    assert model.conversions == 4
    assert result.usage == h.Usage(input_tokens=250, output_tokens=28, cached_tokens=40, requests=2)


async def test_a_failing_tool_reaches_the_model_as_an_error_output(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push(response(function_call("call_x", "explode", {"reason": "bad"})))
    server.push(response(message("it failed, sorry")))
    result = await agent(model).build().run("go")
    assert result.output == "it failed, sorry"
    [call] = result.tool_calls
    assert call.result.is_error and "exploded: bad" in call.result.content
    call_item, output_item = server.requests[1]["input"][1:]
    assert call_item["type"] == "function_call" and call_item["call_id"] == "call_x"
    assert output_item["type"] == "function_call_output" and output_item["call_id"] == "call_x"
    # No error flag exists on the wire, so the text says it; kernel content is otherwise as is.
    assert output_item["output"] == f"Error: {call.result.content}"


async def test_error_outputs_are_prefixed_once(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push(response(message("ok")))
    call = ToolCall(id="t1", name="echo", args={"text": "x"})
    history: list[Message] = [
        UserMessage(content="go"),
        AssistantMessage(tool_calls=(call, ToolCall(id="t2", name="echo"))),
        ToolResultMessage(call_id="t1", name="echo", content="error: already said", is_error=True),
        ToolResultMessage(call_id="t2", name="echo", content="Error here? no", is_error=False),
    ]
    await model.request(ModelRequest(messages=history))
    outputs = [i["output"] for i in server.requests[0]["input"] if "output" in i]
    assert outputs == ["error: already said", "Error here? no"]


@pytest.mark.parametrize("arguments", ['{"a": 1, "b":', "[1, 2]"])
async def test_malformed_arguments_become_an_error_result_not_a_crash(
    server: FakeResponses, model: OpenAIResponsesModel, arguments: str
) -> None:
    server.push(response(function_call("call_m", "add", arguments)))
    server.push(response(message("I will fix my arguments")))
    result = await agent(model).build().run("go")
    assert result.status == "completed", result.error
    assert result.output == "I will fix my arguments"
    [call] = result.tool_calls
    assert call.result.is_error
    sent = server.requests[1]["input"]
    assert sent[1]["type"] == "function_call" and sent[1]["arguments"] == "{}"
    assert sent[2]["type"] == "function_call_output" and sent[2]["call_id"] == "call_m"
    assert sent[2]["output"].startswith("Error: ") and "JSON" in sent[2]["output"]


async def test_parse_errors_and_finish_reasons_on_a_reply(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push(
        response(
            function_call("c1", "add", "not json"),
            function_call("c2", "add", '"a string"'),
            function_call("c3", "add", ""),
        )
    )
    server.push(
        response(message("cut"), status="incomplete", incomplete_reason="max_output_tokens")
    )
    reply = await model.request(ask("go"))
    c1, c2, c3 = reply.message.tool_calls
    assert c1.parse_error and "not valid JSON" in c1.parse_error and not c1.args
    assert c2.parse_error and "got str" in c2.parse_error
    assert c3 == ToolCall(id="c3", name="add")
    assert reply.finish_reason == "tool_calls"
    cut = await model.request(ask("go"))
    assert (cut.message.content, cut.finish_reason) == ("cut", "max_output_tokens")


async def test_reasoning_items_are_sent_back_verbatim(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    thought = reasoning("rs_1", "Adding is easy.", "Then echo.", encrypted="gAAA-secret")
    calls = (
        function_call("call_a", "add", {"a": 1, "b": 2}),
        function_call("call_b", "echo", {"text": "x"}),
    )
    first_reply = response(thought, calls[0], message("Working.", "msg_9"), calls[1])
    server.push(first_reply)
    server.push(response(message("3 and x")))
    replies: list[AssistantMessage] = []
    result = await (
        agent(model)
        .settings(reasoning={"effort": "low", "summary": "auto"})
        .on(h.AFTER_INFERENCE, lambda event: replies.append(event.response.message))
        .build()
        .run("go")
    )
    assert result.status == "completed", result.error
    first, second = server.requests
    assert first["reasoning"] == {"effort": "low", "summary": "auto"}
    assert first["include"] == second["include"] == ["reasoning.encrypted_content"]
    # The reply's own items, in their order, verbatim; then the two outputs.
    assert second["input"][1:5] == first_reply["output"]
    assert [i["type"] for i in second["input"][5:]] == ["function_call_output"] * 2
    assert replies[0].reasoning == "Adding is easy.\n\nThen echo."
    assert replies[0].content == "Working."


async def test_a_replaced_reply_is_sent_in_its_neutral_form(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push(response(reasoning("rs_1", "hm", encrypted="enc"), message("A")))
    server.push(response(message("B")))
    server.push(response(message("C")))
    history: list[Any] = [UserMessage(content="one")]
    reply = await model.request(ModelRequest(messages=history))
    history += [reply.message, UserMessage(content="two")]
    await model.request(ModelRequest(messages=history))
    assert server.requests[1]["input"][1]["type"] == "reasoning"
    # An equal but different object (e.g. rewritten by a hook) loses the raw items.
    copy = AssistantMessage(content=reply.message.content, reasoning=reply.message.reasoning)
    await model.request(ModelRequest(messages=[history[0], copy, history[2]]))
    assert server.requests[2]["input"] == [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "A"},
        {"role": "user", "content": "two"},
    ]
    assert "include" not in server.requests[0]


async def test_conversion_is_incremental_and_rebuilds_for_a_new_history(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    for _ in range(4):
        server.push(response(message("ok")))
    history: list[Any] = [SystemMessage(content="be brief"), UserMessage(content="one")]
    await model.request(ModelRequest(messages=history))
    assert model.conversions == 2
    call = ToolCall(id="t1", name="echo", args={"text": "x"})
    history += [
        AssistantMessage(tool_calls=(call,)),
        ToolResultMessage(call_id="t1", name="echo", content="boom", is_error=True),
    ]
    await model.request(ModelRequest(messages=history))
    assert model.conversions == 4
    await model.request(ModelRequest(messages=history))  # a retry converts nothing
    assert model.conversions == 4
    await model.request(ModelRequest(messages=[UserMessage(content="other run")]))
    assert model.conversions == 5
    assert server.requests[3]["input"] == [{"role": "user", "content": "other run"}]
    assert server.requests[1]["input"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "one"},
        {"type": "function_call", "call_id": "t1", "name": "echo", "arguments": '{"text": "x"}'},
        {"type": "function_call_output", "call_id": "t1", "output": "Error: boom"},
    ]


async def test_conversion_counts_grow_by_the_new_messages_per_step(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    counts: list[int] = []
    server.push(response(function_call("c1", "echo", {"text": "a"})))
    server.push(response(function_call("c2", "add", {"a": 1, "b": 1})))
    server.push(response(message("done")))
    result = await (
        agent(model)
        .on(h.AFTER_INFERENCE, lambda event: counts.append(model.conversions))
        .build()
        .run("go")
    )
    assert result.output == "done"
    # user; + assistant, result; + assistant, result.
    assert counts == [1, 3, 5]
    assert result.usage == h.Usage(input_tokens=30, output_tokens=15, requests=3)


async def test_structured_output_is_requested_in_text_format(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push(response(message('{"answer": 42}')))
    server.push(response(message("{}")))
    schema = {"type": "object", "properties": {"answer": {"type": "integer"}}}
    spec = OutputSpec(name="Answer", schema=schema, strict=True, description="The answer.")
    reply = await model.request(ask("?", output=spec, settings={"text": {"verbosity": "low"}}))
    assert reply.message.content == '{"answer": 42}'
    assert server.requests[0]["text"] == {
        "verbosity": "low",
        "format": {
            "type": "json_schema",
            "name": "Answer",
            "schema": schema,
            "strict": True,
            "description": "The answer.",
        },
    }
    await model.request(ask("?", output=OutputSpec(name="Empty", schema={"type": "object"})))
    assert server.requests[1]["text"]["format"] == {
        "type": "json_schema",
        "name": "Empty",
        "schema": {"type": "object"},
        "strict": False,
    }


async def test_settings_pass_through_or_go_to_the_body(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push(response(message("ok")))
    settings = {"top_k": 20, "top_p": 0.5, "store": True, "include": ["x.y"], "reasoning": {}}
    await model.request(ask(settings=settings))
    sent = server.requests[0]
    assert (sent["top_k"], sent["top_p"], sent["store"]) == (20, 0.5, True)
    assert sent["include"] == ["x.y", "reasoning.encrypted_content"]
    for key in ("model", "input", "tools", "stream", "instructions"):
        with pytest.raises(h.ConfigError, match=repr(key)):
            await model.request(ask(settings={key: 1}))
    with pytest.raises(h.ConfigError, match="not both"):
        await model.request(ask(settings={"max_tokens": 1, "max_output_tokens": 2}))
    assert len(server.requests) == 1


async def test_a_rate_limit_with_retry_after_is_retried(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push_error(429, "Rate limit reached", headers={"Retry-After": "7"})
    server.push(response(message("done")))
    errors: list[BaseException] = []
    policy = h.ErrorPolicy({"rate_limit": "retry"}, max_retries=2, max_backoff=0.0)
    result = await (
        agent(model, policy)
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
    assert server.requests[0]["input"] == server.requests[1]["input"]
    assert model.conversions == 1


async def test_a_server_error_is_retried_by_a_policy_that_says_so(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push_error(500, "The server had an error")
    server.push(response(message("recovered")))
    policy = h.ErrorPolicy({"model": "retry"}, max_retries=1)
    result = await agent(model, policy).build().run("go")
    assert result.output == "recovered"
    assert [d.outcome for d in result.decisions.at(h.ON_ERROR)] == ["retry"]


async def test_an_auth_error_fails_the_run_clearly_without_retry(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push_error(401, "Incorrect API key provided", kind="invalid_request_error")
    result = await agent(model).build().run("go")
    assert (result.status, result.stop_reason) == ("failed", "error")
    text = result.error or ""
    assert "ProviderError" in text and "openai-responses:gpt-test" in text
    assert "HTTP 401" in text and "Incorrect API key provided" in text
    assert len(server.requests) == 1
    # The same failure from the driver directly: a ModelError with its fields set.
    server.push_error(401, "Incorrect API key provided")
    with pytest.raises(h.ModelError) as info:
        await model.request(ask())
    error = info.value
    assert (error.provider, error.model, error.status) == ("openai-responses", "gpt-test", 401)


async def test_a_failed_response_is_a_provider_error(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    error = {"code": "server_error", "message": "The model crashed."}
    server.push(response(status="failed", error=error))
    with pytest.raises(ProviderError, match="server_error: The model crashed") as info:
        await model.request(ask())
    assert info.value.transient  # a server error: the policy may try again
    server.push(response(status="failed", error={"code": "invalid_prompt", "message": "No."}))
    with pytest.raises(ProviderError, match="invalid_prompt: No") as info:
        await model.request(ask())
    assert not info.value.transient


async def test_a_connection_failure_is_a_model_error_without_status() -> None:
    with FakeResponses() as fake:
        url = fake.url
    driver = create("m", base_url=url, api_key="k")
    try:
        with pytest.raises(ProviderError, match="connection failed") as info:
            await driver.request(ask())
        with pytest.raises(ProviderError, match="connection failed"):
            await driver.stream(ask(), lambda delta: None)
    finally:
        await driver.aclose()
    assert info.value.status is None and info.value.retry_after is None
    assert info.value.transient


def test_the_key_is_checked_at_create_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(h.ConfigError, match="OPENAI_API_KEY"):
        create("gpt-x", base_url=None, api_key=None)
    with pytest.raises(h.ConfigError, match="OPENAI_API_KEY"):
        resolve_model("openai-responses:gpt-x")


async def test_resolve_model_builds_the_driver_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, server: FakeResponses
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    explicit = resolve_model("openai-responses:gpt-x", base_url=server.url)
    assert isinstance(explicit, OpenAIResponsesModel)
    assert explicit.name == "openai-responses:gpt-x"
    await explicit.aclose()
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    driver = resolve_model("openai-responses:gpt-x")
    assert isinstance(driver, OpenAIResponsesModel)
    server.push(response(message("hello")))
    try:
        reply = await driver.request(ask())
    finally:
        await driver.aclose()
    assert reply.message.content == "hello"
    assert server.headers[0]["authorization"] == "Bearer sk-env"
    assert server.requests[0]["model"] == "gpt-x"


# -- streaming ------------------------------------------------------------------------------


async def test_streaming_reports_deltas_and_returns_what_request_returns(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    body = response(
        reasoning("rs_1", "Think first.", encrypted="enc"),
        message("Sure thing!"),
        function_call("call_a", "add", {"a": 2, "b": 3}),
        function_call("call_b", "echo", '{"text": "hi"}'),
        input_tokens=40,
        output_tokens=9,
        cached_tokens=8,
    )
    server.push_stream(events_for(body))
    server.push(body)
    deltas: list[Delta] = []
    request = ask("go", step=3, tools=(ToolSpec(name="add", description="", parameters={}),))
    streamed = await model.stream(request, deltas.append)
    plain = await model.request(request)
    assert streamed == plain
    assert streamed.message.reasoning == "Think first."
    assert [c.args for c in streamed.message.tool_calls] == [{"a": 2, "b": 3}, {"text": "hi"}]
    assert server.requests[0]["stream"] is True and "stream" not in server.requests[1]
    assert all(delta.step == 3 for delta in deltas)
    reasoning_text = "".join(d.text for d in deltas if isinstance(d, ReasoningDelta))
    assert reasoning_text == "Think first."
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == "Sure thing!"
    calls = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert [(d.index, d.call_id, d.name) for d in calls if d.name] == [
        (0, "call_a", "add"),
        (1, "call_b", "echo"),
    ]
    for index, call in enumerate(body["output"][2:]):
        fragments = [d.arguments for d in calls if d.index == index]
        assert fragments[0] == "" and len(fragments) > 2
        assert "".join(fragments) == call["arguments"]
    # Deltas arrive in the order the server sent them.
    kinds = [type(d).__name__ for d in deltas]
    assert kinds.index("ReasoningDelta") < kinds.index("TextDelta") < kinds.index("ToolCallDelta")


async def test_a_streamed_run_through_the_agent(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push_stream(events_for(response(function_call("c1", "echo", {"text": "yo"}))))
    server.push_stream(events_for(response(message("said yo"))))
    events = [event async for event in agent(model).build().stream("go")]
    texts = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert texts == "said yo"
    assert any(isinstance(e, ToolCallDelta) and e.name == "echo" for e in events)
    [finished] = [e for e in events if isinstance(e, h.RunFinished)]
    assert finished.result.output == "said yo"
    assert server.requests[1]["input"][-1] == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": "yo",
    }


async def test_a_failed_stream_is_a_provider_error(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    error = {"code": "rate_limit_exceeded", "message": "Too many tokens."}
    body = response(message("partial"), status="failed", error=error)
    server.push_stream(events_for(body))
    deltas: list[Delta] = []
    with pytest.raises(ProviderError, match="rate_limit_exceeded: Too many tokens") as info:
        await model.stream(ask(), deltas.append)
    assert info.value.provider == "openai-responses" and info.value.status is None
    assert info.value.transient
    assert deltas  # the text streamed before the failure was reported


async def test_an_error_event_is_a_provider_error(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    events = events_for(response(message("par")), final="")
    events.append({"type": "error", "code": "server_error", "message": "boom", "param": None})
    server.push_stream(events)
    with pytest.raises(ProviderError, match="server_error: boom"):
        await model.stream(ask(), lambda delta: None)


async def test_a_stream_cut_short_is_a_provider_error(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push_stream(events_for(response(message("never finished")), final=""))
    with pytest.raises(ProviderError, match=r"stream ended before response\.completed") as info:
        await model.stream(ask(), lambda delta: None)
    assert info.value.transient


async def test_a_policy_retries_a_stream_cut_short(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push_stream(events_for(response(message("lost")), final=""))
    server.push_stream(events_for(response(message("whole answer"))))
    policy = h.ErrorPolicy({"model": "retry"}, max_retries=1)
    events = [event async for event in agent(model, policy).build().stream("go")]
    [finished] = [e for e in events if isinstance(e, h.RunFinished)]
    assert finished.result.output == "whole answer"
    assert len(server.requests) == 2 and model.conversions == 1


async def test_an_http_error_opening_a_stream_maps_like_request(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    server.push_error(429, "Slow down", headers={"Retry-After": "2"})
    with pytest.raises(ProviderError, match="Slow down") as info:
        await model.stream(ask(), lambda delta: None)
    assert (info.value.status, info.value.retry_after) == (429, 2.0)


async def test_an_incomplete_stream_still_answers(
    server: FakeResponses, model: OpenAIResponsesModel
) -> None:
    body = response(message("cut off"), status="incomplete", incomplete_reason="max_output_tokens")
    server.push_stream(events_for(body))
    reply = await model.stream(ask(), lambda delta: None)
    assert (reply.message.content, reply.finish_reason) == ("cut off", "max_output_tokens")

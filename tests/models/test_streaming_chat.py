"""Streaming through the Chat Completions driver: SSE from a local fake server, read by the
real `openai` SDK, reassembled into the same reply `request` would give."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

import hookagent as h
from hookagent._messages import UserMessage
from hookagent.models._base import Delta, ModelRequest, ReasoningDelta, TextDelta, ToolCallDelta
from hookagent.models._openai_chat import OpenAIChatModel, ProviderError, create

from .fake_openai import FakeOpenAI, chunks, completion, function_call
from .tools import add


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def model(server: FakeOpenAI) -> AsyncIterator[OpenAIChatModel]:
    driver = create("gpt-test", provider="openai-compatible", base_url=server.url, api_key=None)
    yield driver
    await driver.aclose()


def hello() -> ModelRequest:
    return ModelRequest(messages=[UserMessage(content="hi")], step=3)


async def test_text_deltas_arrive_in_order_and_join_into_the_reply(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(chunks("Hel", "lo, ", "world", prompt_tokens=12, completion_tokens=3))
    deltas: list[Delta] = []
    response = await model.stream(hello(), deltas.append)
    assert deltas == [TextDelta(3, "Hel"), TextDelta(3, "lo, "), TextDelta(3, "world")]
    assert response.message.content == "Hello, world"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 3)
    assert response.finish_reason == "stop" and response.model_name == "gpt-test"
    body = server.requests[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


async def test_tool_calls_split_over_chunks_are_reassembled_as_the_plain_reply_would_be(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(
        chunks(
            "Adding.",
            (0, "call_a", "add", '{"a": 1,'),
            (1, "call_b", "add", ""),
            (0, None, None, ' "b": 2}'),
            (1, None, None, '{"a": 3, "b": 4}'),
            finish_reason="tool_calls",
        )
    )
    server.push(
        completion(
            "Adding.",
            function_call("call_a", "add", {"a": 1, "b": 2}),
            function_call("call_b", "add", {"a": 3, "b": 4}),
        )
    )
    deltas: list[Delta] = []
    streamed = await model.stream(hello(), deltas.append)
    plain = await model.request(hello())
    assert streamed.message == plain.message
    assert [d for d in deltas if isinstance(d, ToolCallDelta)] == [
        ToolCallDelta(3, 0, "call_a", "add", ""),
        ToolCallDelta(3, 0, None, None, '{"a": 1,'),
        ToolCallDelta(3, 1, "call_b", "add", ""),
        ToolCallDelta(3, 0, None, None, ' "b": 2}'),
        ToolCallDelta(3, 1, None, None, '{"a": 3, "b": 4}'),
    ]
    assert streamed.finish_reason == "tool_calls"


async def test_reasoning_text_from_a_compatible_server_is_kept_apart_from_the_answer(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(chunks("42", reasoning=("Six ", "times seven.")))
    deltas: list[Delta] = []
    response = await model.stream(hello(), deltas.append)
    assert [d.text for d in deltas if isinstance(d, ReasoningDelta)] == ["Six ", "times seven."]
    assert response.message.reasoning == "Six times seven."
    assert response.message.content == "42"


async def test_a_server_that_sends_no_usage_chunk_still_counts_the_request(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(chunks("ok", usage=False))
    response = await model.stream(hello(), lambda _: None)
    assert response.usage == h.Usage(requests=1)


async def test_a_stream_cut_before_its_finish_is_a_transient_model_error(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    cut = chunks("par", "tial", usage=False, done=False)
    cut.frames = cut.frames[:-1]  # drop the frame carrying finish_reason
    server.push(cut)
    with pytest.raises(ProviderError, match="stream ended before the reply was finished") as info:
        await model.stream(hello(), lambda _: None)
    assert info.value.status is None


async def test_agent_stream_yields_deltas_before_each_reply_and_runs_the_tools(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(chunks((0, "c1", "add", '{"a": 2, "b": 3}'), finish_reason="tool_calls"))
    server.push(chunks("The sum ", "is 5."))
    seen: list[str] = []
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(add)
        .on(h.AFTER_TOOL, lambda e: seen.append(e.result.content) and None)
        .build()
    )
    events = [event async for event in agent.stream("add 2 and 3")]
    kinds = [type(e).__name__ for e in events if not isinstance(e, h.DecisionMade)]
    assert kinds == [
        "StepStarted",
        "ToolCallDelta",
        "ToolCallDelta",
        "ModelReplied",
        "ToolStarted",
        "ToolFinished",
        "StepFinished",
        "StepStarted",
        "TextDelta",
        "TextDelta",
        "ModelReplied",
        "StepFinished",
        "RunFinished",
    ]
    final = events[-1]
    assert isinstance(final, h.RunFinished) and final.result.output == "The sum is 5."
    assert seen == ["5"]
    second = server.requests[1]
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": "5"}


async def test_malformed_streamed_arguments_reach_the_model_as_an_error_result(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(chunks((0, "c1", "add", '{"a": 2, "b"'), finish_reason="tool_calls"))
    server.push(chunks("Sorry."))
    events = [event async for event in h.AgentBuilder().model(model).tools(add).build().stream("x")]
    final = events[-1]
    assert isinstance(final, h.RunFinished) and final.result.status == "completed"
    result_message = server.requests[1]["messages"][-1]
    assert result_message["role"] == "tool" and "not valid JSON" in result_message["content"]


async def test_a_429_on_a_streamed_call_is_retried_after_retry_after(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push_error(429, "Slow down", headers={"Retry-After": "0"})
    server.push(chunks("fine"))
    agent = h.AgentBuilder().model(model).build()
    events = [event async for event in agent.stream("go")]
    final = events[-1]
    assert isinstance(final, h.RunFinished) and final.result.output == "fine"
    assert [d.outcome for d in final.result.decisions.at(h.ON_ERROR)] == ["retry"]


async def test_a_plain_run_does_not_stream(server: FakeOpenAI, model: OpenAIChatModel) -> None:
    server.push(completion("plain"))
    result = await h.AgentBuilder().model(model).build().run("go")
    assert result.output == "plain"
    assert "stream" not in server.requests[0]


async def test_an_output_spec_asks_for_the_native_json_schema_mode(
    server: FakeOpenAI, model: OpenAIChatModel
) -> None:
    server.push(completion('{"n": 1}'))
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    request = ModelRequest(
        messages=[UserMessage(content="n?")],
        output=h.OutputSpec(name="Answer", schema=schema, strict=True),
    )
    await model.request(request)
    assert server.requests[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Answer", "schema": schema, "strict": True},
    }

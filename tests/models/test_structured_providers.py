"""Structured output through each provider path, real SDKs against local fake servers:
OpenAI's native JSON-schema modes, Anthropic's final-answer tool."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

import hookagent as h
from hookagent.models import _anthropic_messages as anthropic_messages
from hookagent.models import _openai_chat as openai_chat
from hookagent.models import _openai_responses as openai_responses

from . import fake_anthropic as fa
from . import fake_responses as fr
from .fake_openai import FakeOpenAI, chunks, completion


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    approved: bool
    reasons: list[str]


async def test_chat_completions_native_mode_invalid_then_valid() -> None:
    with FakeOpenAI() as server:
        server.push(completion('{"approved": "yes"}'))
        server.push(completion('{"approved": true, "reasons": ["tests pass"]}'))
        model = openai_chat.create("gpt-test", provider="openai", base_url=server.url, api_key="k")
        try:
            result = await h.AgentBuilder().model(model).build().run("ok?", output_type=Verdict)
        finally:
            await model.aclose()
    assert result.parsed == Verdict(approved=True, reasons=["tests pass"])
    first, second = server.requests
    assert first["response_format"]["type"] == "json_schema"
    assert first["response_format"]["json_schema"]["name"] == "Verdict"
    assert first["response_format"]["json_schema"]["strict"] is True
    assert "tools" not in first  # the answer tool is not offered in native mode
    feedback = second["messages"][-1]
    assert feedback["role"] == "user" and "reasons" in feedback["content"]


async def test_chat_completions_native_mode_while_streaming() -> None:
    with FakeOpenAI() as server:
        server.push(chunks('{"approved": ', 'false, "reasons": []}'))
        model = openai_chat.create("gpt-test", provider="openai", base_url=server.url, api_key="k")
        try:
            agent = h.AgentBuilder().model(model).build()
            events = [e async for e in agent.stream("ok?", output_type=Verdict)]
        finally:
            await model.aclose()
    final = events[-1]
    assert isinstance(final, h.RunFinished)
    assert final.result.parsed == Verdict(approved=False, reasons=[])


async def test_responses_native_mode_sends_text_format() -> None:
    with fr.FakeResponses() as server:
        server.push(fr.response(fr.message('{"approved": true, "reasons": ["ok"]}')))
        model = openai_responses.create(
            "gpt-test", provider="openai-responses", base_url=server.url, api_key="k"
        )
        try:
            result = await h.AgentBuilder().model(model).build().run("ok?", output_type=Verdict)
        finally:
            await model.aclose()
    assert result.parsed == Verdict(approved=True, reasons=["ok"])
    text_format = server.requests[0]["text"]["format"]
    assert (text_format["type"], text_format["name"]) == ("json_schema", "Verdict")


async def test_anthropic_uses_the_final_answer_tool_and_retries_a_bad_call() -> None:
    server = fa.FakeAnthropic().start()
    try:
        server.reply(
            fa.message(
                fa.tool_use("tu_1", "final_result", approved="maybe"), stop_reason="tool_use"
            )
        )
        server.reply(
            fa.message(
                fa.tool_use("tu_2", "final_result", approved=False, reasons=["no tests"]),
                stop_reason="tool_use",
            )
        )
        model = anthropic_messages.create(
            "claude-test", provider="anthropic", base_url=server.url, api_key="k"
        )
        try:
            result = await h.AgentBuilder().model(model).build().run("ok?", output_type=Verdict)
        finally:
            await model.aclose()
    finally:
        server.stop()
    assert result.parsed == Verdict(approved=False, reasons=["no tests"])
    assert result.status == "completed" and len(server.requests) == 2
    [tool] = server.requests[0]["tools"]
    assert tool["name"] == "final_result"
    assert tool["input_schema"]["required"] == ["approved", "reasons"]
    error = server.requests[1]["messages"][-1]["content"][0]
    assert error["is_error"] is True and "approved" in error["content"]

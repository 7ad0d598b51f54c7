"""One agent with hooks at every inference and tool point, run through each provider path
(Chat Completions, Responses, Anthropic Messages), plain and streaming, with the real SDKs
against local fake servers. What the hooks did must show on the wire and in the result."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

import hookagent as h
from hookagent.models import _anthropic_messages as anthropic_messages
from hookagent.models import _openai_chat as openai_chat
from hookagent.models import _openai_responses as openai_responses

from . import fake_anthropic as fa
from . import fake_openai as fo
from . import fake_responses as fr
from .tools import add, echo


class Path:
    """A provider path: its fake server, its driver, its replies and how to read its wire."""

    def __init__(self, name: str, stream: bool) -> None:
        self.name, self.stream = name, stream
        self.requests: list[dict[str, Any]] = []

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        if self.name == "chat":
            return [t["function"]["name"] for t in body.get("tools", ())]
        return [t["name"] for t in body.get("tools", ())]

    def last_input_text(self, body: dict[str, Any]) -> str:
        """The text of the newest message the model was sent."""
        if self.name == "chat":
            return str(body["messages"][-1]["content"])
        if self.name == "responses":
            return str(body["input"][-1].get("content") or body["input"][-1].get("output"))
        content = body["messages"][-1]["content"]
        return " ".join(str(b.get("text") or b.get("content")) for b in content)

    def tool_output(self, body: dict[str, Any]) -> str:
        if self.name == "chat":
            return next(m["content"] for m in body["messages"] if m["role"] == "tool")
        if self.name == "responses":
            return next(
                i["output"] for i in body["input"] if i.get("type") == "function_call_output"
            )
        blocks = [b for m in body["messages"] if m["role"] == "user" for b in m["content"]]
        return next(b["content"] for b in blocks if b["type"] == "tool_result")


@asynccontextmanager
async def provider(path: Path) -> AsyncIterator[tuple[h.Model, Callable[[str | None, Any], None]]]:
    """The driver, and `push(text, tool_call)` scripting the next reply."""
    if path.name == "chat":
        with fo.FakeOpenAI() as server:

            def push_chat(text: str | None, call: Any) -> None:
                if path.stream:
                    pieces = [text] if text else [(0, call[0], call[1], json.dumps(call[2]))]
                    server.push(fo.chunks(*pieces, finish_reason="stop" if text else "tool_calls"))
                else:
                    calls = [fo.function_call(*call)] if call else []
                    server.push(fo.completion(text, *calls))

            model = openai_chat.create("gpt-x", provider="openai", base_url=server.url, api_key="k")
            path.requests = server.requests
            yield model, push_chat
            await model.aclose()
    elif path.name == "responses":
        with fr.FakeResponses() as server:

            def push_responses(text: str | None, call: Any) -> None:
                body = fr.response(fr.message(text) if text else fr.function_call(*call))
                if path.stream:
                    server.push_stream(fr.events_for(body))
                else:
                    server.push(body)

            model = openai_responses.create(
                "gpt-x", provider="openai-responses", base_url=server.url, api_key="k"
            )
            path.requests = server.requests
            yield model, push_responses
            await model.aclose()
    else:
        server = fa.FakeAnthropic().start()

        def push_anthropic(text: str | None, call: Any) -> None:
            if text:
                body = fa.message(fa.text(text))
            else:
                body = fa.message(fa.tool_use(call[0], call[1], **call[2]), stop_reason="tool_use")
            server.reply(fa.events(body) if path.stream else body)

        model = anthropic_messages.create(
            "claude-x", provider="anthropic", base_url=server.url, api_key="k"
        )
        path.requests = server.requests
        try:
            yield model, push_anthropic
        finally:
            await model.aclose()
            server.stop()


PATHS = [
    pytest.param(name, stream, id=f"{name}-{'stream' if stream else 'plain'}")
    for name in ("chat", "responses", "anthropic")
    for stream in (False, True)
]


async def run(agent: h.Agent, path: Path) -> h.RunResult:
    if not path.stream:
        return await agent.run("add 2 and 3")
    events = [event async for event in agent.stream("add 2 and 3")]
    final = events[-1]
    assert isinstance(final, h.RunFinished)
    assert any(isinstance(e, h.TextDelta) for e in events)
    return final.result


@pytest.mark.parametrize(("name", "stream"), PATHS)
async def test_hooks_at_every_point_shape_the_run_on_every_provider_path(
    name: str, stream: bool
) -> None:
    path = Path(name, stream)

    def narrow_request(event: h.InferenceEvent) -> h.HookResult:
        request = dataclasses.replace(
            event.request,
            tools=tuple(t for t in event.request.tools if t.name == "add"),
            settings={**event.request.settings, "temperature": 0.25},
        )
        return h.HookResult.modify(request=request)

    def french_please(event: h.InferenceResultEvent) -> h.HookResult | None:
        message = event.response.message
        if message.tool_calls:
            return None
        if event.attempt == 1:
            return h.HookResult.retry("not French", feedback="Réponds en français.")
        checked = dataclasses.replace(message, content=f"{message.content} (checked)")
        return h.HookResult.modify(response=dataclasses.replace(event.response, message=checked))

    def bump_b(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.modify(args={**event.args, "b": event.args["b"] + 1})

    def annotate(event: h.ToolResultEvent) -> h.HookResult:
        result = h.ToolResult(content=f"{event.result.content} (b was bumped)")
        return h.HookResult.modify(result=result)

    async with provider(path) as (model, push):
        push(None, ("call_1", "add", {"a": 2, "b": 3}))
        push("five", None)
        push("cinq", None)
        agent = (
            h.AgentBuilder()
            .model(model)
            .system_prompt("Be brief.")
            .tools(add, echo)
            .on(h.BEFORE_INFERENCE, narrow_request)
            .on(h.AFTER_INFERENCE, french_please)
            .on(h.BEFORE_TOOL, bump_b, match="add")
            .on(h.AFTER_TOOL, annotate, match="add")
            .build()
        )
        result = await run(agent, path)

    assert (result.status, result.output) == ("completed", "cinq (checked)"), result.error
    assert [e.args for e in result.tool_calls] == [{"a": 2, "b": 4}]
    first, second, third = path.requests
    for body in (first, second, third):
        assert path.tool_names(body) == ["add"] and body["temperature"] == 0.25
        assert body.get("stream", False) is stream
    assert path.tool_output(second) == "6 (b was bumped)"
    assert "Réponds en français." in path.last_input_text(third)
    assert result.usage.requests == 3


@pytest.mark.parametrize(("name", "stream"), PATHS)
async def test_a_before_inference_hook_can_answer_without_calling_the_provider(
    name: str, stream: bool
) -> None:
    path = Path(name, stream)

    def cached(event: h.InferenceEvent) -> h.HookResult:
        reply = h.ModelResponse(message=h.AssistantMessage(content="from the cache"))
        return h.HookResult.modify(response=reply)

    async with provider(path) as (model, _):
        agent = h.AgentBuilder().model(model).on(h.BEFORE_INFERENCE, cached).build()
        result = await agent.run("anything")
    assert result.output == "from the cache"
    assert path.requests == []

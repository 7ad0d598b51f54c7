"""A tool result's images on the wire, through each provider's real SDK to a local fake server:
Anthropic image blocks in the `tool_result`, Responses `input_image` parts of the function
output, and Chat Completions one user message of `image_url` parts after the batch of tool
messages (a tool message carries text only)."""

from __future__ import annotations

from typing import Any

import hookagent as h
from hookagent._messages import ImagePart
from hookagent.models import _anthropic_messages as anthropic_messages
from hookagent.models import _openai_chat as openai_chat
from hookagent.models import _openai_responses as openai_responses
from hookagent.testing import ScriptedModel, reply, tool_call

from . import fake_anthropic, fake_openai, fake_responses

DOT = ImagePart(mime_type="image/png", data="iVBORw0KGgo=")
URL = "data:image/png;base64,iVBORw0KGgo="


@h.tool
def snapshot(label: str) -> h.ToolResult:
    """A caption and an image."""
    return h.ToolResult(content=f"caption {label}", images=(DOT,))


async def run(model: Any) -> h.RunResult[Any]:
    try:
        return await h.AgentBuilder().model(model).tools(snapshot).build().run("look")
    finally:
        await model.aclose()


async def test_anthropic_sends_image_blocks_in_the_tool_result() -> None:
    server = fake_anthropic.FakeAnthropic().start()
    try:
        use = fake_anthropic.tool_use("tu_1", "snapshot", label="a")
        server.push(fake_anthropic.message(use, stop_reason="tool_use"))
        server.push(fake_anthropic.message(fake_anthropic.text("seen")))
        model = anthropic_messages.create(
            "claude-test", provider="anthropic", base_url=server.url, api_key="test"
        )
        assert (await run(model)).output == "seen"
        [block] = server.requests[1]["messages"][-1]["content"]
    finally:
        server.stop()
    assert block == {
        "type": "tool_result",
        "tool_use_id": "tu_1",
        "content": [
            {"type": "text", "text": "caption a"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": DOT.data},
            },
        ],
    }


async def test_responses_sends_input_image_parts_in_the_function_output() -> None:
    with fake_responses.FakeResponses() as server:
        call = fake_responses.function_call("c1", "snapshot", {"label": "a"})
        server.push(fake_responses.response(call))
        server.push(fake_responses.response(fake_responses.message("seen")))
        model = openai_responses.create("gpt-test", base_url=server.url, api_key="sk-test")
        assert (await run(model)).output == "seen"
        output = server.requests[1]["input"][-1]
    assert output == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": [
            {"type": "input_text", "text": "caption a"},
            {"type": "input_image", "image_url": URL},
        ],
    }


async def test_chat_sends_the_images_of_a_batch_in_one_user_message_after_it() -> None:
    with fake_openai.FakeOpenAI() as server:
        server.push(
            fake_openai.completion(
                "",
                fake_openai.function_call("c1", "snapshot", {"label": "a"}),
                fake_openai.function_call("c2", "snapshot", {"label": "b"}),
            )
        )
        server.push(fake_openai.completion("seen"))
        model = openai_chat.create(
            "gpt-test", provider="openai-compatible", base_url=server.url, api_key=None
        )
        assert (await run(model)).output == "seen"
        messages = server.requests[1]["messages"]
    assert [m["role"] for m in messages[-3:]] == ["tool", "tool", "user"]
    assert messages[-3]["content"] == "caption a"
    assert messages[-1]["content"] == [
        {"type": "text", "text": "The images returned by the tool calls above:"},
        {"type": "image_url", "image_url": {"url": URL}},
        {"type": "image_url", "image_url": {"url": URL}},
    ]


async def test_a_model_that_does_not_accept_images_reads_a_placeholder() -> None:
    model = ScriptedModel([tool_call("snapshot", label="a"), reply("ok")])
    result = await h.AgentBuilder().model(model).tools(snapshot).build().run("look")
    [executed] = result.tool_calls
    assert executed.result.images == ()
    assert executed.result.content == (
        "caption a\n[image: image/png, 8 bytes; not shown: this model does not accept images]"
    )

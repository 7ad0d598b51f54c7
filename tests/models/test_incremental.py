"""Incremental conversion: only new messages are converted, and a history someone rewrote
is never sent with its old messages."""

from __future__ import annotations

from typing import Any

import hookagent as h
from hookagent._messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from hookagent.models import _openai_chat as openai_chat
from hookagent.models._incremental import SeenPrefix

from .fake_openai import FakeOpenAI, completion


def history() -> list[Any]:
    return [
        UserMessage(content="deploy"),
        AssistantMessage(tool_calls=(ToolCall(id="c1", name="env", args={}),)),
        ToolResultMessage(call_id="c1", name="env", content="TOKEN=secret"),
        AssistantMessage(content="Deploying."),
        UserMessage(content="go on"),
    ]


def test_the_live_history_continues_in_constant_time() -> None:
    seen = SeenPrefix()
    live = history()
    assert seen.new(live[:2]) == (False, live[:2])
    fresh, todo = seen.new(live)  # a different list: checked message by message
    assert (fresh, list(todo)) == (False, live[2:])
    live.append(UserMessage(content="more"))
    fresh, todo = seen.new(live)  # the same list, grown
    assert (fresh, list(todo)) == (False, live[5:])


def test_a_replaced_start_a_shorter_history_or_a_rewritten_middle_start_over() -> None:
    for rewrite in (
        lambda m: [UserMessage(content="summary"), *m[1:]],
        lambda m: m[:3],
        lambda m: [*m[:2], ToolResultMessage(call_id="c1", name="env", content="***"), *m[3:]],
    ):
        seen = SeenPrefix()
        original = history()
        seen.new(original)
        rewritten = rewrite(original)
        fresh, todo = seen.new(rewritten)
        assert fresh and list(todo) == rewritten


async def test_a_before_inference_hook_that_redacts_an_old_message_is_obeyed_on_the_wire() -> None:
    with FakeOpenAI() as server:
        server.push(
            completion(
                None,
                {"id": "c1", "type": "function", "function": {"name": "env", "arguments": "{}"}},
            )
        )
        server.push(completion("Deploying."))
        server.push(completion("done"))

        @h.tool
        def env() -> str:
            """Show the environment."""
            return "TOKEN=secret"

        def redact(event: h.InferenceEvent) -> h.HookResult | None:
            messages = [
                ToolResultMessage(call_id=m.call_id, name=m.name, content="TOKEN=***")
                if isinstance(m, ToolResultMessage)
                else m
                for m in event.request.messages
            ]
            if len(event.request.messages) < 4:
                return None
            return h.HookResult.modify(request=h.ModelRequest(messages=messages))

        def one_more(event: h.StopEvent) -> h.HookResult | None:
            return None if event.stop_hook_active else h.HookResult.block("go on")

        model = openai_chat.create("m", provider="openai", base_url=server.url, api_key="k")
        agent = (
            h.AgentBuilder()
            .model(model)
            .tools(env)
            .on(h.BEFORE_INFERENCE, redact)
            .on(h.STOP, one_more)
            .build()
        )
        result = await agent.run("deploy")
        await model.aclose()
    assert result.output == "done"
    second, third = server.requests[1], server.requests[2]
    assert second["messages"][2]["content"] == "TOKEN=secret"  # before the hook kicked in
    assert third["messages"][2]["content"] == "TOKEN=***"

"""A tiny local OpenAI Responses API server for driver tests (stdlib only, no network).

Script it with a queue of replies; it records every request body it receives::

    with FakeResponses() as server:
        server.push(response(message("hi")))
        server.push_error(429, "slow down", headers={"Retry-After": "1"})
        server.push_stream(events_for(response(message("hi"))))
        ... AsyncOpenAI(base_url=server.url) ...
        server.requests  # the JSON bodies, in order

A streamed reply is sent as `text/event-stream` frames (`event: <type>` / `data: <json>`) on a
connection that closes after the last frame, so the client reads until the end.
"""

from __future__ import annotations

import json
from typing import Any

from .fake_openai import OpenAIServer
from .fake_server import Reply
from .sse import SSE

__all__ = [
    "FakeResponses",
    "Reply",
    "events_for",
    "function_call",
    "message",
    "reasoning",
    "response",
]

PATHS = ("/v1/responses", "/responses")


def message(text: str, item_id: str = "msg_1") -> dict[str, Any]:
    """An assistant output message with one output_text part."""
    return {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def function_call(
    call_id: str, name: str, arguments: str | dict[str, Any], item_id: str | None = None
) -> dict[str, Any]:
    """A function_call output item; `arguments` is raw text (possibly malformed) or an object."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "type": "function_call",
        "id": item_id or f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": raw,
        "status": "completed",
    }


def reasoning(item_id: str, *summary: str, encrypted: str | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": item_id,
        "summary": [{"type": "summary_text", "text": text} for text in summary],
    }
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item


def response(
    *output: dict[str, Any],
    status: str = "completed",
    input_tokens: int = 10,
    output_tokens: int = 5,
    cached_tokens: int = 0,
    model: str = "gpt-test",
    error: dict[str, Any] | None = None,
    incomplete_reason: str | None = None,
) -> dict[str, Any]:
    """A Responses API `Response` body."""
    return {
        "id": "resp_fake",
        "object": "response",
        "created_at": 0,
        "model": model,
        "status": status,
        "error": error,
        "incomplete_details": {"reason": incomplete_reason} if incomplete_reason else None,
        "output": list(output),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached_tokens},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
    }


def _pieces(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def events_for(body: dict[str, Any], *, final: str | None = None) -> list[dict[str, Any]]:
    """The events a server streams for `body`: each output item added, its text, reasoning
    summary or arguments in small deltas, done, and a last `response.<status>` event
    (`final` overrides that type; pass "" to end the stream without one)."""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**body, "status": "in_progress", "output": []}}
    ]
    for index, item in enumerate(body["output"]):
        kind = item["type"]
        where = {"item_id": item["id"], "output_index": index}
        if kind == "message":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "content": [], "status": "in_progress"},
                }
            )
            for part_index, part in enumerate(item["content"]):
                for piece in _pieces(part["text"]):
                    events.append(
                        {
                            "type": "response.output_text.delta",
                            **where,
                            "content_index": part_index,
                            "delta": piece,
                            "logprobs": [],
                        }
                    )
        elif kind == "function_call":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "arguments": "", "status": "in_progress"},
                }
            )
            for piece in _pieces(item["arguments"]):
                events.append(
                    {"type": "response.function_call_arguments.delta", **where, "delta": piece}
                )
        elif kind == "reasoning":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "summary": []},
                }
            )
            for summary_index, summary in enumerate(item["summary"]):
                for piece in _pieces(summary["text"]):
                    events.append(
                        {
                            "type": "response.reasoning_summary_text.delta",
                            **where,
                            "summary_index": summary_index,
                            "delta": piece,
                        }
                    )
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    last = f"response.{body['status']}" if final is None else final
    if last:
        events.append({"type": last, "response": body})
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


class FakeResponses(OpenAIServer):
    """Serves scripted Responses API replies on 127.0.0.1 at a free port, in a thread."""

    def __init__(self) -> None:
        super().__init__(PATHS)

    def push_stream(self, events: list[dict[str, Any]]) -> None:
        """Script a streamed reply: the events, each with its `type`, as `event: <type>` frames."""
        self.push(SSE([(event["type"], event) for event in events], {"Cache-Control": "no-cache"}))

"""A tiny local OpenAI Chat Completions server for driver tests (stdlib only, no network).

Script it with a queue of replies; it records every request body it receives::

    with FakeOpenAI() as server:
        server.push(completion("hi"))
        server.push_error(429, "slow down", headers={"Retry-After": "1"})
        ... AsyncOpenAI(base_url=server.url) ...
        server.requests  # the JSON bodies, in order
"""

from __future__ import annotations

import json
from typing import Any

from .fake_server import FakeServer, Reply
from .sse import SSE

__all__ = ["SSE", "FakeOpenAI", "OpenAIServer", "Reply", "chunks", "completion", "function_call"]

PATHS = ("/v1/chat/completions", "/chat/completions")


def function_call(call_id: str, name: str, arguments: str | dict[str, Any]) -> dict[str, Any]:
    """A wire tool call; `arguments` is a raw string (possibly malformed) or an object."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}


def completion(
    content: str | None = None,
    *calls: dict[str, Any],
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
    cached_tokens: int = 0,
    model: str = "gpt-test",
) -> dict[str, Any]:
    """A Chat Completions response body."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
        },
    }


def chunks(
    *pieces: str | tuple[int, str | None, str | None, str],
    finish_reason: str = "stop",
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
    cached_tokens: int = 0,
    model: str = "gpt-test",
    reasoning: tuple[str, ...] = (),
    usage: bool = True,
    done: bool = True,
) -> SSE:
    """A streamed Chat Completions reply: each str is a text fragment, each tuple
    `(index, id, name, arguments fragment)` a piece of a tool call."""
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model}

    def frame(delta: dict[str, Any], finish: str | None = None) -> tuple[None, dict[str, Any]]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return (None, {**base, "choices": [choice]})

    frames: list[tuple[str | None, Any]] = [frame({"role": "assistant", "content": ""})]
    frames += [frame({"reasoning_content": text}) for text in reasoning]
    for piece in pieces:
        if isinstance(piece, str):
            frames.append(frame({"content": piece}))
            continue
        index, call_id, name, arguments = piece
        call: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
        if call_id:
            call["id"], call["type"] = call_id, "function"
        if name:
            call["function"]["name"] = name
        frames.append(frame({"tool_calls": [call]}))
    frames.append(frame({}, finish_reason))
    if usage:
        frames.append(
            (
                None,
                {
                    **base,
                    "choices": [],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                        "prompt_tokens_details": {"cached_tokens": cached_tokens},
                    },
                },
            )
        )
    if done:
        frames.append((None, "[DONE]"))
    return SSE(frames)


class OpenAIServer(FakeServer):
    """A fake OpenAI API (Chat Completions or Responses): errors in OpenAI's format."""

    def __init__(self, paths: tuple[str, ...]) -> None:
        super().__init__(paths, _error_body, base_path="/v1")

    def push_error(
        self,
        status: int,
        message: str,
        *,
        kind: str = "error",
        headers: dict[str, str] | None = None,
    ) -> None:
        body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
        self.push(body, status, headers)


class FakeOpenAI(OpenAIServer):
    """Serves scripted Chat Completions replies on 127.0.0.1 at a free port, in a thread."""

    def __init__(self) -> None:
        super().__init__(PATHS)


def _error_body(status: int, message: str) -> dict[str, Any]:
    """The body of an error the fake itself sends (an unknown path, no reply left)."""
    return {"error": {"message": message, "type": "fake"}}

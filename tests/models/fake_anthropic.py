"""A local stand-in for the Anthropic Messages API, for the real SDK to talk to.

Each test scripts a queue of replies (status, JSON body, headers) for `POST /v1/messages`;
the server records every request body. It listens on 127.0.0.1 on a free port, in a thread.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .fake_server import FakeServer
from .sse import SSE

__all__ = ["SSE", "FakeAnthropic", "error", "events", "message", "text", "tool_use"]


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(id: str, name: str, **input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def message(
    *content: dict[str, Any],
    stop_reason: str = "end_turn",
    input_tokens: int = 10,
    output_tokens: int = 5,
    cache_read: int = 0,
) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-20250101",
        "content": list(content),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_read_input_tokens": cache_read,
            "cache_creation_input_tokens": 0,
        },
    }


def events(reply: dict[str, Any], *, split: int = 3) -> SSE:
    """The streamed form of a `message(...)` reply: text, thinking and tool input are sent in
    fragments of `split` characters; a tool input given as a str is sent as is (it may be
    malformed JSON)."""
    start = {**reply, "content": [], "stop_reason": None}
    start["usage"] = {**reply["usage"], "output_tokens": 1}
    frames: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]

    def pieces(text: str) -> list[str]:
        return [text[i : i + split] for i in range(0, len(text), split)]

    for index, block in enumerate(reply["content"]):
        kind = block["type"]
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
        elif kind == "thinking":
            opening = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "tool_use":
            opening = {**block, "input": {}}
            raw = block["input"] if isinstance(block["input"], str) else json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces(raw)]
        else:
            opening = block
        frames.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        frames += [
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        frames.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    frames.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": reply["usage"]["output_tokens"]},
            },
        )
    )
    frames.append(("message_stop", {"type": "message_stop"}))
    return SSE(frames)


def error(kind: str, text: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": text}}


class FakeAnthropic(FakeServer):
    """Serves scripted replies to `POST /v1/messages`; `start()` it, `stop()` it after."""

    def __init__(self) -> None:
        super().__init__(("/v1/messages",), _error_body)

    def reply(
        self,
        body: dict[str, Any] | SSE | bytes,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.push(body, status, headers)


def _error_body(status: int, message: str) -> dict[str, Any]:
    """The body of an error the fake itself sends (an unknown path, no reply left)."""
    return error("not_found_error" if status == 404 else "api_error", message)

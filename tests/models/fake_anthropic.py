"""A local stand-in for the Anthropic Messages API, for the real SDK to talk to.

Each test scripts a queue of replies (status, JSON body, headers) for `POST /v1/messages`;
the server records every request body. It listens on 127.0.0.1 on a free port, in a thread.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .sse import SSE, send_sse

__all__ = ["SSE", "FakeAnthropic", "error", "events", "message", "text", "tool_use"]

Reply = tuple[int, "dict[str, Any] | SSE", dict[str, str]]


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


class FakeAnthropic:
    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(body)
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply: Reply
                if self.path != "/v1/messages":
                    reply = (404, error("not_found_error", self.path), {})
                elif fake.replies:
                    reply = fake.replies.popleft()
                else:
                    reply = (500, error("api_error", "fake_anthropic: no reply scripted"), {})
                status, payload, headers = reply
                if isinstance(payload, SSE):
                    send_sse(self, payload)
                    return
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def reply(
        self,
        body: dict[str, Any] | SSE,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.replies.append((status, body, dict(headers or {})))

    def start(self) -> FakeAnthropic:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

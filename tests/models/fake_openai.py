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
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .sse import SSE, send_sse

__all__ = ["SSE", "FakeOpenAI", "Reply", "chunks", "completion", "function_call"]

PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


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


class FakeOpenAI:
    """Serves scripted replies on 127.0.0.1 at a free port, in a daemon thread."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                fake.paths.append(self.path)
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path not in PATHS:
                    reply = Reply(404, {"error": {"message": f"no route {self.path}"}})
                else:
                    fake.requests.append(json.loads(raw or b"{}"))
                    reply = fake.replies.popleft() if fake.replies else _unscripted()
                if isinstance(reply.body, SSE):
                    send_sse(self, reply.body)
                    return
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output quiet

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def push(self, body: Any, status: int = 200, headers: dict[str, str] | None = None) -> None:
        self.replies.append(Reply(status, body, dict(headers or {})))

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

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _unscripted() -> Reply:
    message = "fake server: no scripted reply left for this request"
    return Reply(500, {"error": {"message": message, "type": "fake"}})

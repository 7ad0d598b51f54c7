"""Server-sent events for the fake provider servers: a scripted reply that streams."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

__all__ = ["SSE", "send_sse"]


@dataclass
class SSE:
    """A stream of `(event name or None, data)` frames; data that is not a str is JSON."""

    frames: list[tuple[str | None, Any]] = field(default_factory=list[tuple[str | None, Any]])
    headers: dict[str, str] = field(default_factory=dict[str, str])

    def encode(self) -> bytes:
        out: list[str] = []
        for event, data in self.frames:
            text = data if isinstance(data, str) else json.dumps(data)
            out.append((f"event: {event}\n" if event else "") + f"data: {text}\n\n")
        return "".join(out).encode()


def send_sse(handler: BaseHTTPRequestHandler, stream: SSE) -> None:
    """Write the whole stream and close the connection (the client reads to the end)."""
    data = stream.encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Content-Length", str(len(data)))
    handler.send_header("Connection", "close")
    for key, value in stream.headers.items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(data)
    handler.wfile.flush()
    handler.close_connection = True

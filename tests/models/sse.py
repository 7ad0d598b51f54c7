"""Server-sent events for the fake provider servers: a scripted reply that streams.

`FakeServer` (in fake_server.py) sends one on a connection that closes after the last frame."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SSE"]


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

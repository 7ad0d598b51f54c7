"""The machinery every fake provider server shares (stdlib only, no network).

A `FakeServer` listens on 127.0.0.1 at a free port, in a daemon thread, and answers each
`POST` with the next scripted reply: a JSON body, or an `SSE` stream sent on a connection that
closes after the last frame. It records the path and headers of every request and the JSON
body of every request to an accepted path. An unknown path gets a 404; a request with no reply
left gets a 500. Each provider's fake builds those two error bodies in its own wire format::

    with FakeServer(("/v1/things",), lambda status, text: {"error": text}, base_path="/v1") as s:
        s.push({"ok": True})
        s.push(SSE([(None, {"n": 1}), (None, "[DONE]")]))
        ... client(base_url=s.url) ...
        s.requests  # the JSON bodies, in order
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from .sse import SSE

__all__ = ["SSE", "ErrorBody", "FakeServer", "Reply"]

ErrorBody = Callable[[int, str], Any]
"""Builds the body of an error the server itself sends, from its status (404: an unknown path,
500: no scripted reply left) and a message."""

UNSCRIPTED = "fake server: no scripted reply left for this request"


@dataclass
class Reply:
    """One scripted reply; a `body` that is an `SSE` is streamed, `bytes` are sent as they
    are, any other body is sent as JSON."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict[str, str])


class FakeServer:
    """Serves scripted replies to `POST`s on `paths`; `url` is the base URL for a client."""

    def __init__(self, paths: Iterable[str], error_body: ErrorBody, *, base_path: str = "") -> None:
        self.accepted = frozenset(paths)
        self.error_body = error_body
        self.base_path = base_path
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self.base_path}"

    def push(self, body: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> None:
        """Script the next reply: a JSON-able body, or an `SSE` stream."""
        self.replies.append(Reply(status, body, dict(headers or {})))

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _answer(self, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        """Record one request and pick its reply."""
        self.paths.append(path)
        self.headers.append(headers)
        if path not in self.accepted:
            return Reply(404, self.error_body(404, f"no route {path}"))
        self.requests.append(json.loads(raw or b"{}"))
        if self.replies:
            return self.replies.popleft()
        return Reply(500, self.error_body(500, UNSCRIPTED))


def _handler(fake: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in separate writes: without this, Nagle's algorithm
            # holds the body back until the client acknowledges the headers.
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {key.lower(): value for key, value in self.headers.items()}
            reply = fake._answer(self.path, headers, raw)
            if isinstance(reply.body, SSE):
                # The client reads the stream to its end, so the connection closes after it.
                data = reply.body.encode()
                self.close_connection = True
                extra = {"Connection": "close", **reply.body.headers, **reply.headers}
                self._send(reply.status, "text/event-stream", data, extra)
            else:  # bytes are sent as they are: a body json.dumps could not write
                data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body)
                data = data if isinstance(data, bytes) else data.encode()
                self._send(reply.status, "application/json", data, reply.headers)

        def _send(
            self, status: int, content_type: str, data: bytes, headers: Mapping[str, str]
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output quiet

    return Handler

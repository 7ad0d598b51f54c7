"""A webhook on a loopback port, in a thread: records each POST and answers with the
statuses it is given in turn (then 200), or holds every request without answering."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Webhook", "webhook"]


@dataclass
class Webhook:
    url: str
    statuses: list[int] = field(default_factory=list)
    """Answered in turn, one per request; 200 once they run out."""
    hold: bool = False
    """Never answer: each request waits until the server stops."""
    received: list[dict[str, Any]] = field(default_factory=list)
    """Each request: path, headers (lower-case names) and JSON body."""
    released: threading.Event = field(default_factory=threading.Event)

    @property
    def bodies(self) -> list[Any]:
        return [r["body"] for r in self.received]


@contextmanager
def webhook(
    statuses: list[int] | None = None, *, hold: bool = False, path: str = "/hook"
) -> Iterator[Webhook]:
    hook: Webhook

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # http.server's name
            size = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(size) or b"null")
            hook.received.append(
                {
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body,
                }
            )
            if hook.hold:
                hook.released.wait(30)
                return
            status = hook.statuses.pop(0) if hook.statuses else 200
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    hook = Webhook(f"http://127.0.0.1:{server.server_port}{path}", list(statuses or ()), hold)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hook
    finally:
        hook.released.set()
        server.shutdown()
        server.server_close()
        thread.join(5)

"""The HTTP the sandbox's proxy speaks: a client's request head read, and its answers.

Two request shapes are served, the ones proxy-aware clients (curl, pip, git, requests,
urllib) send: `CONNECT host:port` for https (the proxy then carries bytes both ways and never
sees inside the TLS), and a plain request with an absolute `http://` URL, which is sent on
with an origin-form target, a `Host` header naming the URL's host (so the request line is
the one place the host is named) and `Connection: close` (one request per connection, so a
kept-alive connection cannot be reused for another host). Anything else is a 400.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import urlsplit

from hookagent._record import record

__all__ = ["ESTABLISHED", "Request", "answer", "parse_request"]

_DROPPED: Final = ("proxy-", "connection:", "keep-alive:", "host:")
_PHRASES: Final = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}


@record
class Request:
    method: str
    host: str
    port: int
    head: bytes
    """What to send the server first: nothing for CONNECT, else the rewritten head."""


def parse_request(head: bytes) -> Request | str:
    """The request `head` (up to and with its blank line) asks for, or why it is refused."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        return "not an HTTP proxy request"
    method, target, version = parts
    if method == "CONNECT":
        host, _, digits = target.rpartition(":")
        if not host or not digits.isdigit() or not 0 < int(digits) < 65536:
            return f"CONNECT target {target!r} is not host:port"
        return Request(method=method, host=host.strip("[]"), port=int(digits), head=b"")
    try:
        url = urlsplit(target)
        port = url.port or 80
    except ValueError:
        return f"{target!r} is not a URL"
    if url.scheme != "http" or not url.hostname:
        return "the proxy takes absolute http:// URLs, and CONNECT for https"
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    kept = [line for line in lines[1:] if line and not line.lower().startswith(_DROPPED)]
    rewritten = [f"{method} {path} {version}", f"Host: {url.netloc}", *kept, "Connection: close"]
    return Request(
        method=method,
        host=url.hostname,
        port=port,
        head=("\r\n".join(rewritten) + "\r\n\r\n").encode("latin-1"),
    )


def answer(status: int, body: str) -> bytes:
    """A complete response carrying `body` as text, closing the connection."""
    data = body.encode()
    return (
        f"HTTP/1.1 {status} {_PHRASES[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
    ).encode() + data


ESTABLISHED: Final = b"HTTP/1.1 200 Connection Established\r\n\r\n"

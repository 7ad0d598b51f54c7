"""A stand-in Chat Completions server for `bench/openai_path.py`, run as its own process so
it never competes with the measured loop for the interpreter.

Every request is answered at once from two prebuilt bodies: a call of the echo tool while
the conversation holds fewer than `--steps` tool results, then a final answer. It counts the
tool results with one `bytes.count`, so answering costs nearly nothing at any history length.

    python bench/openai_server.py --steps 1000     # prints the port, then serves
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MARK = b'"tool_call_id"'


def body(message: dict[str, Any], finish: str) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 0,
            "model": "bench",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
    ).encode()


def tool_turn(step: int) -> bytes:
    call = {
        "id": f"call_{step}",
        "type": "function",
        "function": {"name": "echo", "arguments": json.dumps({"text": f"echo {step}"})},
    }
    return body({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, required=True)
    steps = parser.parse_args().steps
    turns = [tool_turn(i) for i in range(1, steps + 1)]
    answer = body({"role": "assistant", "content": "done"}, "stop")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Headers and body go out as two writes: without this, Nagle's algorithm holds
            # the body until the client's delayed ACK, 40 ms per reply.
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            done = raw.count(MARK)
            data = turns[done] if done < steps else answer
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        sys.stdout.close()


if __name__ == "__main__":
    main()

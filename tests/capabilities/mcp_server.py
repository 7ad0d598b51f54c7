"""A real MCP server for the MCP capability's tests, written with the SDK's `MCPServer`.

Run as `python mcp_server.py` (stdio), `python mcp_server.py http PORT` (streamable HTTP on
127.0.0.1:PORT, endpoint `/mcp`) or `python mcp_server.py sse PORT` (HTTP+SSE, `/sse`). The
name `math` is what the tests connect it as. With `MCP_TEST_PIDFILE` set, the process writes
its pid there first thing, so tests can see it end; with `MCP_TEST_STARTS` set, it adds its
pid as a line there, so tests can count the starts.
"""

from __future__ import annotations

import asyncio
import os
import sys

if pidfile := os.environ.get("MCP_TEST_PIDFILE"):  # first, before the slow imports
    with open(pidfile, "w") as out:
        out.write(str(os.getpid()))
if starts := os.environ.get("MCP_TEST_STARTS"):  # one line per process started
    with open(starts, "a") as out:
        out.write(f"{os.getpid()}\n")

from typing import Annotated

from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    Image,
    MCPServer,
    Resolve,
)
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

server = MCPServer("math", log_level="WARNING")


class Sum(BaseModel):
    total: int


@server.tool()
def add(a: int, b: int) -> Sum:
    """Add two integers."""
    return Sum(total=a + b)


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def fail(message: str = "it broke") -> str:
    """Always fails, with `message`."""
    raise ToolError(message)


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@server.tool(structured_output=False)
def picture() -> list[str | Image]:
    """A caption and a tiny image: content blocks with no structured content."""
    return ["a red dot", Image(data=b"\x89PNG-not-really", format="png")]


@server.tool(structured_output=False)
def text(size: int) -> str:
    """`size` characters of text."""
    return "".join(f"{n:07d}\n" for n in range(size // 8 + 1))[:size]


@server.tool(structured_output=False, meta={"anthropic/maxResultSizeChars": 120_000})
def page(size: int) -> str:
    """`size` characters of text, read whole up to 120,000 as the server declares."""
    return "p" * size


@server.tool()
def crash() -> str:
    """Ends the server process mid-call."""
    os._exit(1)


@server.tool(name="env.get")
def env_get(name: str) -> str:
    """An environment variable of the server process (a dotted name, to test sanitising)."""
    return os.environ.get(name, "")


class Deploy(BaseModel):
    target: str = "staging"
    confirm: bool = False


def ask_to_deploy() -> Elicit[Deploy]:
    return Elicit("Deploy the build?", Deploy)


@server.tool()
async def deploy(answer: Annotated[ElicitationResult[Deploy], Resolve(ask_to_deploy)]) -> str:
    """Asks the user (elicitation) before deploying; says what it was told."""
    if isinstance(answer, AcceptedElicitation):
        return f"accept: target={answer.data.target} confirm={answer.data.confirm}"
    return answer.action


@server.tool()
def header(name: str, ctx: Context) -> str:
    """A header of the HTTP request carrying this call ('' on stdio)."""
    return (ctx.headers or {}).get(name, "")


def main() -> None:
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif sys.argv[1:2] == ["sse"]:
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()


if __name__ == "__main__":
    main()

"""One MCP server's connection, through the official SDK (`mcp.Client`).

The SDK's sessions are anyio context managers, which must be entered and left by one task.
Each connection therefore lives in a task of its own: it connects, lists the tools, reports
them and then waits to be told to close. Any task (a tool call in the kernel, a test fixture's
teardown) may call tools and close it, and a server dying mid-run only ends that task.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import IO, Any, TypeAlias, final

try:
    import httpx2
    from mcp import Client, MCPError, StdioServerParameters, stdio_client, types
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client
except ImportError as exc:  # pragma: no cover - depends on what is installed
    raise ImportError(
        "hookagent.capabilities.mcp needs the MCP SDK: pip install 'hookagent[mcp]'"
    ) from exc

from hookagent.mcp_client._config import HttpServer, ServerConfig, SseServer, StdioServer

__all__ = ["CallFailed", "Elicit", "ServerConnection", "describe"]

log = logging.getLogger("hookagent.mcp")

_MAX_PAGES = 100
"""tools/list pages read before giving up: a server whose cursor never ends cannot hang us."""
_CLOSE_TIMEOUT = 10.0
"""Seconds a closing connection gets before its task is cancelled (the SDK bounds its own
shutdown of a stdio server at a few seconds)."""


_STDERR_TAIL = 600
"""Characters of a stdio server's stderr quoted when it fails to start."""

Elicit: TypeAlias = Callable[[str, types.ElicitRequestParams], Awaitable[types.ElicitResult]]
"""Answers a server's `elicitation/create` request: `elicit(server_name, params)`."""


class CallFailed(Exception):
    """A tool call got no result; the message says why, for the model to read."""


def describe(exc: BaseException) -> str:
    """A one-line account of `exc`, looking inside the exception groups anyio raises, with
    its notes (a server's stderr)."""
    notes = "".join(f"; {note}" for note in getattr(exc, "__notes__", ()))
    return _describe_one(exc) + notes


def _describe_one(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in exc.exceptions)
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, MCPError | CallFailed) else f"{type(exc).__name__}: {text}"


@final
class ServerConnection:
    """A connection to one server, opened and closed any number of times."""

    def __init__(self, name: str, config: ServerConfig) -> None:
        self.name = name
        self.config = config
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._stderr: IO[str] | None = None
        self.elicit: Elicit | None = None
        """Who answers the server's questions to the user; None: each is declined."""

    @property
    def is_open(self) -> bool:
        return self._client is not None

    def __repr__(self) -> str:
        state = "open" if self._client is not None else "closed"
        return f"<ServerConnection {self.name!r} {self.config.transport} {state}>"

    async def open(self) -> list[types.Tool]:
        """Connect and list the server's tools; raises what went wrong (the caller names us)."""
        if self._task is not None:
            raise RuntimeError(f"MCP server {self.name!r} is already connected")
        ready = asyncio.get_running_loop().create_future()
        self._closing = asyncio.Event()
        self._task = asyncio.create_task(self._own(ready), name=f"hookagent MCP {self.name}")
        try:
            async with asyncio.timeout(self.config.connect_timeout):
                tools: list[types.Tool] = await asyncio.shield(ready)
        except BaseException as exc:
            try:
                await self._abort()
            finally:
                if isinstance(exc, Exception) and (said := self._stderr_tail()):
                    exc.add_note(f"stderr: {said}")
                self._close_stderr()
            raise
        return tools

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _stderr_tail(self) -> str:
        """The end of what a stdio server wrote to stderr, on one line."""
        log_file = self._stderr
        if log_file is None or log_file.closed:
            return ""
        log_file.flush()
        log_file.seek(0)
        text = " ".join(log_file.read().split())
        return text[-_STDERR_TAIL:]

    async def _answer(
        self, context: object, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        if self.elicit is None:
            return types.ElicitResult(action="decline")
        return await self.elicit(self.name, params)

    async def call(self, tool: str, args: dict[str, Any]) -> types.CallToolResult:
        """Call `tool`; a failure without a result (timeout, lost connection) is `CallFailed`."""
        client = self._client
        if client is None:
            raise CallFailed("the server is not connected (was the MCP capability closed?)")
        timeout = self.config.timeout
        try:
            return await client.call_tool(tool, args, read_timeout_seconds=timeout)
        except MCPError as exc:
            if exc.code == types.REQUEST_TIMEOUT:
                raise CallFailed(f"no answer within {timeout:g} s; the call was cancelled") from exc
            raise CallFailed(f"{exc.message} (MCP error {exc.code})") from exc
        except Exception as exc:  # any transport failure is the model's to read, not a crash
            raise CallFailed(describe(exc)) from exc

    async def close(self) -> None:
        """End the session (stopping a stdio server) and wait, boundedly, for it to finish."""
        task, self._task = self._task, None
        if task is None:
            return
        self._closing.set()
        try:
            done, _ = await asyncio.wait({task}, timeout=_CLOSE_TIMEOUT)
            if not done:
                log.warning(
                    "MCP server %r did not close within %s s; cancelled", self.name, _CLOSE_TIMEOUT
                )
                await _cancel(task)
        finally:
            self._close_stderr()

    async def _abort(self) -> None:
        """Give up on a connection still starting (timed out, or the opener was cancelled)."""
        task, self._task = self._task, None
        if task is not None:
            await _cancel(task)

    async def _own(self, ready: asyncio.Future[list[types.Tool]]) -> None:
        try:
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(await self._client_for(stack))
                tools = await _list_tools(client)
                self._client = client
                ready.set_result(tools)
                await self._closing.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            else:
                log.warning(
                    "MCP server %r: the connection ended badly: %s", self.name, describe(exc)
                )
        finally:
            self._client = None

    async def _client_for(self, stack: AsyncExitStack) -> Client:
        config = self.config
        if isinstance(config, StdioServer):
            params = StdioServerParameters(
                command=config.command,
                args=list(config.args),
                env=None if config.env is None else dict(config.env),
                cwd=None if config.cwd is None else str(config.cwd),
            )
            # Kept open while the server runs; closed by `close` or a failed `open`.
            self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            transport: Any = stdio_client(params, errlog=self._stderr)
        elif isinstance(config, SseServer):
            transport = sse_client(config.url, headers=dict(config.headers), timeout=30.0)
        else:
            transport = streamable_http_client(config.url, http_client=await _http(stack, config))
        return Client(transport, elicitation_callback=self._answer)


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise  # we were cancelled too, not only the task we cancelled


async def _http(stack: AsyncExitStack, config: HttpServer) -> httpx2.AsyncClient:
    # The SDK's own defaults (30 s to connect, 300 s to read a held-open stream), plus headers.
    timeout = httpx2.Timeout(30.0, read=300.0)
    client = httpx2.AsyncClient(headers=dict(config.headers), timeout=timeout)
    return await stack.enter_async_context(client)


async def _list_tools(client: Client) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools
    raise CallFailed(f"tools/list still had more pages after {_MAX_PAGES}")

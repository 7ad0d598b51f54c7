"""`MCP`: the tools of MCP servers as hookagent tools, named `mcp__<server>__<tool>`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from os import PathLike
from types import TracebackType
from typing import Any, Self, final

from hookagent._errors import ConfigError
from hookagent.capabilities.mcp._claude_config import load_claude_config
from hookagent.capabilities.mcp._elicit import ask_hook
from hookagent.capabilities.mcp._tool import MCPTool, output_token_limit
from hookagent.hooks._hook import Hook
from hookagent.mcp_client._client import ServerConnection, describe
from hookagent.mcp_client._config import HttpServer, ServerConfig, SseServer, StdioServer, sanitise

__all__ = ["MCP"]


@final
class MCP:
    """A capability bringing the tools of MCP servers, and a hook asking a human when a server
    asks the user for input (see `elicit`).

    The builder collects tools when the agent is built, so the servers are connected and their
    tools listed first, and closed when the agent is done with them::

        async with MCP({"math": StdioServer(command="math-server")}) as mcp:
            agent = AgentBuilder().model(model).with_(mcp).build()
            result = await agent.run("what is 2 + 3?")

    (or `mcp = await MCP.connect(servers)` … `await mcp.aclose()`). Sessions belong to the
    event loop that opened them, so run the agent with `await agent.run(...)` in that loop,
    not with `run_sync`. Closed, the tools stay in the agent and answer with an error result;
    opened again, they work again. A server that cannot start or list its tools is a
    `ConfigError` naming it, and the others are closed; a call that fails at run time is an
    error result naming server and tool.
    """

    name = "mcp"

    def __init__(self, servers: Mapping[str, ServerConfig]) -> None:
        if not isinstance(servers, Mapping):
            raise ConfigError(f"must be a mapping of names to servers, not {servers!r}", key="MCP")
        self._connections = tuple(
            ServerConnection(name, _checked(name, config)) for name, config in servers.items()
        )
        _unique({c.name: sanitise(c.name) for c in self._connections}, "server names")
        self._tools: tuple[MCPTool, ...] | None = None
        self._open = False

    @classmethod
    async def connect(cls, servers: Mapping[str, ServerConfig]) -> MCP:
        """Connect to every server and list its tools; `aclose()` when done."""
        return await cls(servers).open()

    @classmethod
    def from_claude_config(cls, path: str | PathLike[str]) -> MCP:
        """The servers of a Claude Code `.mcp.json` (not connected yet)."""
        return cls(load_claude_config(path))

    def __repr__(self) -> str:
        names = ", ".join(repr(c.name) for c in self._connections)
        return f"<MCP [{names}] {'open' if self._open else 'closed'}>"

    @property
    def servers(self) -> tuple[str, ...]:
        return tuple(c.name for c in self._connections)

    def connection(self, name: str) -> ServerConnection:
        """The connection to server `name`, for callers sharing it (`mcp_tool` hooks)."""
        for connection in self._connections:
            if connection.name == name:
                return connection
        raise ConfigError(f"no MCP server {name!r} (servers: {self.servers})", key="MCP")

    async def open(self) -> Self:
        """Connect to all servers at once and list their tools; a no-op when already open."""
        if self._open:
            return self
        token_limit = output_token_limit()
        outcomes = await asyncio.gather(
            *(c.open() for c in self._connections), return_exceptions=True
        )
        pairs = list(zip(self._connections, outcomes, strict=True))
        failures = [(c, o) for c, o in pairs if isinstance(o, Exception)]
        interrupted = [
            o for _, o in pairs if isinstance(o, BaseException) and not isinstance(o, Exception)
        ]
        if failures or interrupted:
            await self._close_all()
            if interrupted:
                raise interrupted[0]  # cancelled while connecting: not a server's fault
            _raise_for(failures)
        tools = tuple(
            MCPTool.of(c, tool, token_limit=token_limit)
            for c, listed in pairs
            if isinstance(listed, list)
            for tool in listed
        )
        try:
            _unique({f"{t.server}/{t.remote_name}": t.name for t in tools}, "tool names")
        except ConfigError:
            await self._close_all()
            raise
        self._tools, self._open = tools, True
        return self

    async def aclose(self) -> None:
        """Close every connection (stopping stdio servers); safe to call twice."""
        self._open = False
        await self._close_all()

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def tools(self) -> tuple[MCPTool, ...]:
        if self._tools is None:
            raise ConfigError(
                "the MCP servers are not connected yet: build the agent inside "
                "`async with MCP(...) as mcp:` or after `mcp = await MCP.connect(...)`",
                key="MCP.tools",
            )
        return self._tools

    def hooks(self) -> Iterable[Hook[Any]]:
        """One hook, run last at `elicitation`: a server's request for the user's input that
        no hook answered is asked of a human through the run's approver."""
        return (ask_hook(),)

    async def _close_all(self) -> None:
        await asyncio.gather(*(c.close() for c in self._connections))


def _checked(name: object, config: object) -> ServerConfig:
    if not isinstance(name, str) or not name:
        raise ConfigError(f"a server name must be a non-empty string, not {name!r}", key="MCP")
    if not isinstance(config, StdioServer | HttpServer | SseServer):
        raise ConfigError(
            f"must be a StdioServer, an HttpServer or an SseServer, not {config!r}",
            key=f"MCP[{name!r}]",
        )
    return config


def _raise_for(failures: list[tuple[ServerConnection, Exception]]) -> None:
    def reason(connection: ServerConnection, exc: Exception) -> str:
        if isinstance(exc, TimeoutError):
            limit = connection.config.connect_timeout
            return f"did not start and list its tools within {limit:g} s"
        return describe(exc)

    message = "; ".join(
        f"MCP server {c.name!r} failed to connect: {reason(c, e)}" for c, e in failures
    )
    raise ConfigError(message, key="MCP", value=failures[0][0].name) from failures[0][1]


def _unique(names: Mapping[str, str], what: str) -> None:
    """Refuse two originals that sanitise to one name: calls would go to the wrong one."""
    seen: dict[str, str] = {}
    for original, safe in names.items():
        if safe in seen:
            raise ConfigError(
                f"{seen[safe]!r} and {original!r} both become {safe!r}", key=f"MCP {what}"
            )
        seen[safe] = original

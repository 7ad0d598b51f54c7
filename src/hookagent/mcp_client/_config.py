"""How to reach an MCP server: a subprocess on stdio, a streamable-HTTP or an SSE endpoint.

Plain data, checked and normalised on construction; nothing here imports the MCP SDK, so a
configuration can be built (or read from Claude Code's `.mcp.json`) without it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike, fspath
from typing import Literal, TypeAlias

from hookagent._errors import ConfigError
from hookagent._record import record

__all__ = ["HttpServer", "ServerConfig", "SseServer", "StdioServer", "sanitise", "tool_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def sanitise(name: str) -> str:
    """`name` with every character outside `[A-Za-z0-9_-]` replaced by `_`, as Claude Code does."""
    return _UNSAFE.sub("_", name)


def tool_name(server: str, tool: str) -> str:
    """The name a server's tool goes by in hookagent and in hooks: `mcp__<server>__<tool>`."""
    return f"mcp__{sanitise(server)}__{sanitise(tool)}"


def _positive(owner: str, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(
            f"must be a positive number of seconds, not {value!r}", key=f"{owner}.{key}"
        )
    return float(value)


def _strings(owner: str, key: str, value: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigError(f"must map strings to strings, not {value!r}", key=f"{owner}.{key}")
    return dict(value)


@record
class StdioServer:
    """An MCP server started as a subprocess, speaking JSON-RPC on its stdin and stdout."""

    command: str
    """The executable; looked up on `PATH` like a shell would."""
    args: Sequence[str] = ()
    env: Mapping[str, str] | None = None
    """Variables set for the server. The SDK passes on only a safe part of this process's
    environment (`HOME`, `PATH`, `SHELL`, `TERM`, `USER`, `LOGNAME`); put anything else here."""
    cwd: str | PathLike[str] | None = None
    timeout: float = 60.0
    """Seconds one tool call may take; past it the call is an error result (and is cancelled)."""
    connect_timeout: float = 30.0
    """Seconds to start the server, negotiate and list its tools."""
    transport: Literal["stdio"] = field(default="stdio", init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.command, str) or not self.command:
            raise ConfigError(
                f"must be a non-empty string, not {self.command!r}", key="StdioServer.command"
            )
        if isinstance(self.args, str) or not all(isinstance(a, str) for a in self.args):
            raise ConfigError(
                f"must be a list of strings, not {self.args!r}", key="StdioServer.args"
            )
        object.__setattr__(self, "args", tuple(self.args))
        if self.env is not None:
            object.__setattr__(self, "env", _strings("StdioServer", "env", self.env))
        if self.cwd is not None:
            object.__setattr__(self, "cwd", fspath(self.cwd))
        object.__setattr__(self, "timeout", _positive("StdioServer", "timeout", self.timeout))
        connect = _positive("StdioServer", "connect_timeout", self.connect_timeout)
        object.__setattr__(self, "connect_timeout", connect)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Remote:
    """What the two HTTP transports share: an endpoint, its headers and the time limits."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    """Sent with every request, e.g. `{"Authorization": "Bearer …"}`."""
    timeout: float = 60.0
    """Seconds one tool call may take; past it the call is an error result (and is cancelled)."""
    connect_timeout: float = 30.0
    """Seconds to connect, negotiate and list the server's tools."""

    def __post_init__(self) -> None:
        owner = type(self).__name__
        if not isinstance(self.url, str) or not self.url.startswith(("http://", "https://")):
            raise ConfigError(f"must be an http(s) URL, not {self.url!r}", key=f"{owner}.url")
        object.__setattr__(self, "headers", _strings(owner, "headers", self.headers))
        object.__setattr__(self, "timeout", _positive(owner, "timeout", self.timeout))
        connect = _positive(owner, "connect_timeout", self.connect_timeout)
        object.__setattr__(self, "connect_timeout", connect)


@record
class HttpServer(_Remote):
    """An MCP server reached over the streamable-HTTP transport (the endpoint, e.g. `…/mcp`)."""

    transport: Literal["http"] = field(default="http", init=False)


@record
class SseServer(_Remote):
    """An MCP server reached over the older HTTP+SSE transport (Claude Code's `"type": "sse"`)."""

    transport: Literal["sse"] = field(default="sse", init=False)


ServerConfig: TypeAlias = StdioServer | HttpServer | SseServer

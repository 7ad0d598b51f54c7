"""The MCP servers of a run: `--mcp-config FILE` and the project's `.mcp.json`, connected
for the run.

The files are read as Claude Code reads them (`capabilities.mcp.claude_config`). A file the
user names must be right: a mistake in any server's entry is a `ConfigError` naming file,
server and key. The project's `.mcp.json`, read when settings are discovered, is read as
found: a wrong entry is a warning and the other servers are kept. Every server of a run
connects before the run starts; one that cannot is a `ConfigError` naming it and why.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

from hookagent._errors import ConfigError
from hookagent.sessions._warn import warn as default_warn

if TYPE_CHECKING:
    from hookagent.capabilities.mcp import MCP
    from hookagent.capabilities.mcp._claude_config import MCPConfigs
    from hookagent.sessions._agent_spec import RunOptions

__all__ = ["PROJECT_FILE", "connected", "server_configs"]

PROJECT_FILE: Final = ".mcp.json"
"""The project's MCP servers, in its root folder, as in Claude Code."""


def server_configs(
    explicit: tuple[str, ...],
    *,
    cwd: str | None,
    discover: bool,
    warn: Callable[[str], object] | None = None,
) -> MCPConfigs:
    """The servers of the `explicit` files (every entry must be right) and, with `discover`,
    of the project's `.mcp.json` (a wrong entry is a warning). Warnings go to `warn`."""
    from hookagent.capabilities.mcp._claude_config import MCPConfigs, load_mcp_configs

    warn = warn or default_warn
    found = Path(cwd or os.getcwd()) / PROJECT_FILE
    named = {Path(p).resolve() for p in explicit}
    configs = MCPConfigs()
    if discover and found.is_file() and found.resolve() not in named:
        configs = load_mcp_configs([found], strict=False)
    if explicit:
        given = load_mcp_configs(explicit)
        for name in given.servers.keys() & configs.servers.keys():
            warn(
                f"MCP server {name!r} of {configs.servers[name].file} is replaced by "
                f"the one of {given.servers[name].file}"
            )
        configs = MCPConfigs(
            {**configs.servers, **given.servers}, configs.warnings + given.warnings
        )
    for line in configs.warnings:
        warn(line)
    return configs


@asynccontextmanager
async def connected(options: RunOptions) -> AsyncIterator[MCP | None]:
    """The run's MCP servers, connected (None when it has none), closed after the run. A
    server that cannot start is a `ConfigError` naming it, its file and why."""
    configs = server_configs(
        options.mcp_configs, cwd=options.cwd, discover=options.discover_settings
    )
    if options.claude_project is not None or options.claude_plugins:
        from hookagent.sessions._claude_project import with_project_mcp

        configs = with_project_mcp(options, configs)  # .mcp.json of the project and plugins
    if not configs.servers:
        yield None
        return
    from hookagent.capabilities.mcp import MCP

    mcp = MCP(configs.configs())
    try:
        await mcp.open()
    except ConfigError as exc:
        name = exc.value if isinstance(exc.value, str) else ""
        source = configs.servers[name].file if name in configs.servers else None
        raise ConfigError(str(exc).removeprefix("MCP: "), file=source) from exc
    try:
        yield mcp
    finally:
        await mcp.aclose()

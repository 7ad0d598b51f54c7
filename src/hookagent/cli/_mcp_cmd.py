"""MCP servers from the command line: `--mcp-config FILE` and the project's `.mcp.json` for a
run, and `hookagent mcp ls`.

The files are read as Claude Code reads them (`capabilities.mcp.claude_config`). A file the
user names with `--mcp-config` must be right: a mistake in any server's entry is exit 2
naming file, server and key. The project's `.mcp.json`, read with `--discover-settings`, is
read as found: a wrong entry is a warning and the other servers are kept. Every server of a
run connects before the run starts; one that cannot is exit 2 naming it and why.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hookagent.cli._groups import command_group
from hookagent.cli._shared_options import JsonOpt
from hookagent.sessions._mcp_servers import server_configs

if TYPE_CHECKING:
    from hookagent.capabilities.mcp._claude_config import ConfiguredServer

__all__ = ["mcp_app"]

mcp_app = command_group("MCP servers: list what is configured and whether it connects.")


# -- hookagent mcp ls -------------------------------------------------------------------------
@mcp_app.command("ls")
def ls(
    mcp_config: Annotated[
        list[str] | None,
        typer.Option("--mcp-config", metavar="FILE", help="A .mcp.json file. Repeatable."),
    ] = None,
    discover_settings: Annotated[
        bool, typer.Option("--discover-settings", help="Also read the project's .mcp.json.")
    ] = False,
    json_output: JsonOpt = False,
) -> None:
    """The configured servers, where each is configured, whether it connects, and its tools.

    Exit 0 when every server connects, 1 when some do not, 2 for a bad configuration."""
    from hookagent.cli._exits import guarded

    raise typer.Exit(guarded(lambda: _ls(tuple(mcp_config or ()), discover_settings, json_output)))


def _ls(files: tuple[str, ...], discover: bool, json_output: bool) -> int:
    import asyncio

    warnings: list[str] = []
    configs = server_configs(files, cwd=None, discover=discover, warn=warnings.append)
    rows = asyncio.run(_probe(list(configs.servers.values()))) if configs.servers else []
    if json_output:
        typer.echo(json.dumps({"servers": rows, "warnings": warnings}, indent=2))
    else:
        for line in warnings:
            typer.echo(f"warning: {line}", err=True)
        _print(rows, discover)
    return 1 if any(row["status"] != "connected" for row in rows) else 0


async def _probe(servers: list[ConfiguredServer]) -> list[dict[str, Any]]:
    import asyncio

    from hookagent.mcp_client._client import ServerConnection, describe
    from hookagent.mcp_client._config import tool_name

    async def one(server: ConfiguredServer) -> dict[str, Any]:
        row: dict[str, Any] = {
            "name": server.name,
            "source": server.file,
            "transport": server.config.transport,
            "status": "connected",
            "error": None,
            "tools": [],
        }
        connection = ServerConnection(server.name, server.config)
        try:
            listed = await connection.open()
        except TimeoutError:
            limit = server.config.connect_timeout
            row.update(status="failed", error=f"did not start within {limit:g} s")
            return row
        except Exception as exc:
            row.update(status="failed", error=describe(exc))
            return row
        try:
            row["tools"] = [
                {
                    "name": tool_name(server.name, tool.name),
                    "tool": tool.name,
                    "description": _first_line(tool.description or tool.title or ""),
                }
                for tool in listed
            ]
        finally:
            await connection.close()
        return row

    return list(await asyncio.gather(*(one(s) for s in servers)))


def _print(rows: list[dict[str, Any]], discover: bool) -> None:
    if not rows:
        hint = "" if discover else ", or --discover-settings to read ./.mcp.json"
        typer.echo(f"no MCP servers configured (pass --mcp-config FILE{hint})")
        return
    for row in rows:
        head = f"{row['name']} ({row['transport']}, {row['source']})"
        if row["status"] == "connected":
            count = len(row["tools"])
            typer.echo(f"{head}: connected, {count} tool{'' if count == 1 else 's'}")
            for tool in row["tools"]:
                typer.echo(f"  {tool['name']}  {tool['description']}".rstrip())
        else:
            typer.echo(f"{head}: failed: {row['error']}")


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0].strip() if text.strip() else ""


def _warn(line: str) -> None:
    typer.echo(f"warning: {line}", err=True)

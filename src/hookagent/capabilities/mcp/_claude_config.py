"""Read the MCP servers of Claude Code's `.mcp.json` files, as Claude Code reads them.

A file is `{"mcpServers": {name: server}}`, or, as in plugins, the `{name: server}` map with
no wrapper. A server is `{command, args?, env?}` (stdio; `"type": "stdio"` optional),
`{"type": "http", url, headers?}` (streamable HTTP) or `{"type": "sse", url, headers?}`. As in
Claude Code, `${VAR}` and `${VAR:-default}` in `command`, `args`, `env`, `url` and `headers`
are expanded from the environment, with `${CLAUDE_PLUGIN_ROOT}` set for a plugin's file (and
passed to its stdio servers); stdio servers start in the file's folder (the plugin's root for
a plugin). Unknown keys are ignored.

A mistake in one server's entry is a `ConfigError` naming the file, the server and the key.
`load_mcp_configs(..., strict=False)` (files found rather than named by the user) keeps the
other servers instead and reports the mistake as a warning naming file and server. A file that
cannot be read or is not a JSON object is an error either way.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import field
from os import PathLike
from pathlib import Path
from typing import Any

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.mcp_client._config import HttpServer, ServerConfig, SseServer, StdioServer

__all__ = ["ConfiguredServer", "MCPConfigs", "load_claude_config", "load_mcp_configs"]

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
PLUGIN_ROOT = "CLAUDE_PLUGIN_ROOT"

StrPath = str | PathLike[str]


@record(kw_only=False)
class ConfiguredServer:
    """One server as configured: its name, how to reach it, and the file that said so."""

    name: str
    config: ServerConfig
    file: str


@record(kw_only=False)
class MCPConfigs:
    """The servers of some `.mcp.json` files by name (a later file's entry replaces an
    earlier one's, with a warning), and what was wrong but not fatal."""

    servers: dict[str, ConfiguredServer] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def configs(self) -> dict[str, ServerConfig]:
        return {name: server.config for name, server in self.servers.items()}


def load_claude_config(
    path: StrPath, *, environ: Mapping[str, str] | None = None
) -> dict[str, ServerConfig]:
    """The servers of the `.mcp.json` at `path`, by name, in file order; any mistake is a
    `ConfigError`."""
    return load_mcp_configs([path], environ=environ).configs()


def load_mcp_configs(
    paths: Iterable[StrPath],
    *,
    plugin_root: StrPath | None = None,
    strict: bool = True,
    environ: Mapping[str, str] | None = None,
) -> MCPConfigs:
    """The servers of the `.mcp.json` files at `paths`, in order. `plugin_root`: the files
    belong to the plugin in that folder (`${CLAUDE_PLUGIN_ROOT}`, stdio servers start there).
    `strict=False`: a server whose entry is wrong is left out with a warning."""
    env = dict(os.environ if environ is None else environ)
    root = None if plugin_root is None else str(Path(plugin_root).resolve())
    if root is not None:
        env[PLUGIN_ROOT] = root
    servers: dict[str, ConfiguredServer] = {}
    warnings: list[str] = []
    for path in paths:
        file = Path(path).absolute()
        where = str(file)
        entries, prefix = _entries(file)
        reader = _Reader(where, env, root or str(file.resolve().parent), plugin_root=root)
        for name, spec in entries.items():
            try:
                config = reader.server(f"{prefix}{name}", spec)
            except ConfigError as exc:
                if strict:
                    raise
                warnings.append(f"{exc}; MCP server {name!r} of {where} left out")
                continue
            if name in servers:
                earlier = servers.pop(name).file
                warnings.append(
                    f"MCP server {name!r} of {earlier} is replaced by the one of {where}"
                )
            servers[name] = ConfiguredServer(name, config, where)
    return MCPConfigs(servers, tuple(warnings))


def _entries(file: Path) -> tuple[dict[str, Any], str]:
    """The file's `{name: server}` map, and the key prefix its entries are named under."""
    where = str(file)
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot be read ({exc.strerror or exc})", file=where) from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"is not valid JSON ({exc})", file=where) from exc
    if not isinstance(document, dict):
        raise ConfigError(
            'must be a JSON object: {"mcpServers": {name: server}} or {name: server}', file=where
        )
    if "mcpServers" in document:
        servers = document["mcpServers"]
        if not isinstance(servers, dict):
            raise ConfigError(f"must be an object, not {servers!r}", file=where, key="mcpServers")
        return servers, "mcpServers."
    return document, ""  # a plugin's file: the servers with no wrapper


class _Reader:
    def __init__(
        self, file: str, environ: Mapping[str, str], folder: str, *, plugin_root: str | None
    ) -> None:
        self.file = file
        self.environ = environ
        self.folder = folder
        self.plugin_root = plugin_root

    def server(self, key: str, spec: object) -> ServerConfig:
        if not isinstance(spec, dict):
            raise ConfigError(f"must be an object, not {spec!r}", file=self.file, key=key)
        kind = spec.get("type", "stdio" if "url" not in spec else None)
        try:
            if kind == "stdio":
                return self._stdio(key, spec)
            if kind in ("http", "streamable-http"):
                return HttpServer(**self._remote(key, spec))
            if kind == "sse":
                return SseServer(**self._remote(key, spec))
        except ConfigError as exc:
            if exc.file is not None:
                raise
            # raised by the server types, which know no file: add it and the entry
            raise ConfigError(str(exc), file=self.file, key=key) from exc
        if kind is None:
            message = 'has a url but no type: add "type": "http" (or "sse")'
        else:
            message = f"type {kind!r} is not supported (use 'stdio', 'http' or 'sse')"
        raise ConfigError(message, file=self.file, key=f"{key}.type")

    def _stdio(self, key: str, spec: dict[str, Any]) -> StdioServer:
        env = self._mapping(f"{key}.env", spec.get("env"))
        if self.plugin_root is not None:
            env = {PLUGIN_ROOT: self.plugin_root, **(env or {})}
        return StdioServer(
            command=self._expand(f"{key}.command", spec.get("command")),
            args=[self._expand(f"{key}.args[{i}]", a) for i, a in enumerate(self._list(key, spec))],
            env=env,
            cwd=self.folder,
        )

    def _remote(self, key: str, spec: dict[str, Any]) -> dict[str, Any]:
        return {
            "url": self._expand(f"{key}.url", spec.get("url")),
            "headers": self._mapping(f"{key}.headers", spec.get("headers")) or {},
        }

    def _list(self, key: str, spec: dict[str, Any]) -> list[object]:
        args = spec.get("args", [])
        if not isinstance(args, list):
            raise ConfigError(f"must be a list, not {args!r}", file=self.file, key=f"{key}.args")
        return args

    def _mapping(self, key: str, value: object) -> dict[str, str] | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            raise ConfigError(f"must be an object, not {value!r}", file=self.file, key=key)
        return {str(k): self._expand(f"{key}.{k}", v) for k, v in value.items()}

    def _expand(self, key: str, value: object) -> str:
        if not isinstance(value, str):
            raise ConfigError(f"must be a string, not {value!r}", file=self.file, key=key)

        def substitute(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            found = self.environ.get(name)
            if found is not None:
                return found
            if default is not None:
                return default
            raise ConfigError(
                f"${{{name}}} is not set and has no default", file=self.file, key=key, value=name
            )

        return _VARIABLE.sub(substitute, value)

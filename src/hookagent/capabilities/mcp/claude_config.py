"""Read the MCP servers of a Claude Code `.mcp.json`.

The file is `{"mcpServers": {name: server}}`, a server being `{command, args?, env?}` (stdio;
`"type": "stdio"` optional) or `{"type": "http", url, headers?}`. As in Claude Code, `${VAR}`
and `${VAR:-default}` in `command`, `args`, `env`, `url` and `headers` are expanded from the
environment, and stdio servers start in the file's folder (the project root). Unknown keys are
ignored; anything else wrong is a `ConfigError` naming the file and the key.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Any

from hookagent.capabilities.mcp.config import HttpServer, ServerConfig, StdioServer
from hookagent.errors import ConfigError

__all__ = ["load_claude_config"]

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def load_claude_config(
    path: str | PathLike[str], *, environ: Mapping[str, str] | None = None
) -> dict[str, ServerConfig]:
    """The servers of the `.mcp.json` at `path`, by name, in file order."""
    file = Path(path)
    where = str(file)
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot be read ({exc.strerror or exc})", file=where) from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"is not valid JSON ({exc})", file=where) from exc
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    if not isinstance(servers, dict):
        raise ConfigError("must be an object with an object under it", file=where, key="mcpServers")
    env = os.environ if environ is None else environ
    reader = _Reader(where, env, str(file.resolve().parent))
    return {name: reader.server(name, spec) for name, spec in servers.items()}


class _Reader:
    def __init__(self, file: str, environ: Mapping[str, str], folder: str) -> None:
        self.file = file
        self.environ = environ
        self.folder = folder

    def server(self, name: str, spec: object) -> ServerConfig:
        key = f"mcpServers.{name}"
        if not isinstance(spec, dict):
            raise ConfigError(f"must be an object, not {spec!r}", file=self.file, key=key)
        kind = spec.get("type", "stdio")
        try:
            if kind == "stdio":
                return self._stdio(key, spec)
            if kind in ("http", "streamable-http"):
                return self._http(key, spec)
        except ConfigError as exc:
            if exc.file is not None:
                raise
            # raised by the server types, which know no file: add it and the entry
            raise ConfigError(str(exc), file=self.file, key=key) from exc
        raise ConfigError(
            f"type {kind!r} is not supported (use 'stdio' or 'http')",
            file=self.file,
            key=f"{key}.type",
        )

    def _stdio(self, key: str, spec: dict[str, Any]) -> StdioServer:
        return StdioServer(
            command=self._expand(f"{key}.command", spec.get("command")),
            args=[self._expand(f"{key}.args[{i}]", a) for i, a in enumerate(self._list(key, spec))],
            env=self._mapping(f"{key}.env", spec.get("env")),
            cwd=self.folder,
        )

    def _http(self, key: str, spec: dict[str, Any]) -> HttpServer:
        return HttpServer(
            url=self._expand(f"{key}.url", spec.get("url")),
            headers=self._mapping(f"{key}.headers", spec.get("headers")) or {},
        )

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

"""Claude Code's `sandbox` settings key, read into `Bash` options.

Mapped: `enabled` (`false` → `sandbox="off"`, `true` → `"auto"`), `failIfUnavailable`
(`true` → `"required"`), `filesystem.allowWrite` (writable paths) and `filesystem.denyRead`
(deny paths, added to the defaults). Paths take Claude Code's prefixes: `//` absolute, `~/`
the home folder, `/` the settings file's folder, anything else the project folder. A key
hookagent cannot honour is a `ConfigError` naming the file and the key, unless it holds the
value that changes nothing (`excludedCommands: []`, `autoAllowBashIfSandboxed: false`, ...):
`excludedCommands`, `allowUnsandboxedCommands: true` (commands never leave the sandbox),
`autoAllowBashIfSandboxed: true` (approvals ask for Bash whether sandboxed or not),
`network.allowedDomains` (no allowlisting proxy yet), the socket and proxy keys of `network`,
`filesystem.denyWrite`. Booleans follow Claude Code's precedence (managed, then the
command line's files, local, project, user); lists are merged across files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, final

from hookagent.capabilities.bash.sandbox import SandboxMode
from hookagent.errors import ConfigError

__all__ = ["SandboxSettings", "read_sandbox_settings"]

PRECEDENCE: Final = {"user": 1, "project": 2, "local": 3, "explicit": 4, "managed": 5}

_INERT: Final[dict[str, object]] = {
    "excludedCommands": [],
    "allowUnsandboxedCommands": False,
    "autoAllowBashIfSandboxed": False,
}
_WHY: Final = {
    "excludedCommands": "every command runs in the sandbox; no command is excluded",
    "allowUnsandboxedCommands": "a command that fails in the sandbox is never rerun outside it",
    "autoAllowBashIfSandboxed": "approvals ask for Bash calls whether sandboxed or not",
    "network.allowedDomains": "a domain allowlist is not supported yet (network is off)",
    "filesystem.denyWrite": "write-only denials are not supported; use denyRead",
}
_NETWORK_INERT: Final = (
    "allowedDomains",
    "deniedDomains",
    "allowUnixSockets",
    "allowAllUnixSockets",
    "allowLocalBinding",
    "allowManagedDomainsOnly",
    "httpProxyPort",
    "socksProxyPort",
)


@final
@dataclass(slots=True)
class SandboxSettings:
    """What the settings files ask of the sandbox; None: they do not say."""

    mode: SandboxMode | None = None
    writable: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)


def read_sandbox_settings(
    files: Iterable[tuple[Path, str]], project_dir: str | os.PathLike[str]
) -> SandboxSettings:
    """The `sandbox` keys of `files` (path and source kind; missing files are skipped)."""
    found = SandboxSettings()
    deciding: dict[str, tuple[int, bool]] = {}
    for path, kind in files:
        section = _section(path) if path.is_file() else None
        where = _Where(path, Path(project_dir))
        for key, value in (section or {}).items():
            if key in ("enabled", "failIfUnavailable"):
                if not isinstance(value, bool):
                    raise where.error(f"sandbox.{key}", "must be true or false", value)
                rank = PRECEDENCE.get(kind, 0)
                if key not in deciding or rank >= deciding[key][0]:
                    deciding[key] = (rank, value)
            else:
                _read_key(where, key, value, found)
    enabled = deciding.get("enabled", (0, None))[1]
    if enabled is False:
        found.mode = "off"
    elif deciding.get("failIfUnavailable", (0, False))[1]:
        found.mode = "required"
    elif enabled:
        found.mode = "auto"
    return found


def _read_key(where: _Where, key: str, value: object, found: SandboxSettings) -> None:
    if key in _INERT:
        if value != _INERT[key]:
            raise where.error(f"sandbox.{key}", f"is not supported: {_WHY[key]}", value)
    elif key == "network":
        _check_network(where, value)
    elif key == "filesystem":
        _read_filesystem(where, value, found)
    else:
        raise where.error(f"sandbox.{key}", "is not a sandbox setting hookagent knows", value)


@final
@dataclass(frozen=True, slots=True)
class _Where:
    file: Path
    project: Path

    def error(self, key: str, message: str, value: object) -> ConfigError:
        return ConfigError(message, file=str(self.file), key=key, value=value)

    def path(self, key: str, value: object) -> str:
        """A settings path made absolute by Claude Code's prefixes."""
        if not isinstance(value, str) or not value:
            raise self.error(key, "must be a list of paths", value)
        if value.startswith("//"):
            return value[1:]
        if value == "~" or value.startswith("~/"):
            return str(Path.home()) + value[1:]
        if value.startswith("/"):
            return str(self.file.parent / value[1:])
        return str(self.project / value)


def _section(path: Path) -> Mapping[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read settings: {exc}", file=str(path)) from None
    section = data.get("sandbox") if isinstance(data, dict) else None
    if section is not None and not isinstance(section, dict):
        raise ConfigError("must be an object", file=str(path), key="sandbox", value=section)
    return section


def _check_network(where: _Where, value: object) -> None:
    if not isinstance(value, dict):
        raise where.error("sandbox.network", "must be an object", value)
    for key, item in value.items():
        name = f"sandbox.network.{key}"
        if key not in _NETWORK_INERT:
            raise where.error(name, "is not a sandbox setting hookagent knows", item)
        if item not in (None, False, []):
            why = _WHY.get(f"network.{key}", "the sandbox has no network unless allowed")
            raise where.error(name, f"is not supported: {why}", item)


def _read_filesystem(where: _Where, value: object, found: SandboxSettings) -> None:
    if not isinstance(value, dict):
        raise where.error("sandbox.filesystem", "must be an object", value)
    for key, items in value.items():
        name = f"sandbox.filesystem.{key}"
        if key == "denyWrite":
            if items not in (None, []):
                raise where.error(name, f"is not supported: {_WHY['filesystem.denyWrite']}", items)
            continue
        if key not in ("allowWrite", "denyRead"):
            raise where.error(name, "is not a sandbox setting hookagent knows", items)
        if not isinstance(items, list):
            raise where.error(name, "must be a list of paths", items)
        into = found.writable if key == "allowWrite" else found.deny
        into.extend(p for p in (where.path(name, item) for item in items) if p not in into)

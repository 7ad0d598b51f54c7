"""Claude Code's `sandbox` settings key, read into `Bash` options.

Mapped: `enabled` (`false` → `sandbox="off"`, `true` → `"auto"`), `failIfUnavailable`
(`true` → `"required"`), `filesystem.allowWrite` (writable paths) and `filesystem.denyRead`
(deny paths, added to the defaults), `network.allowedDomains` (the domain allowlist of
the sandbox's proxy, patterns checked as `domains.py` reads them), and
`network.allowManagedDomainsOnly` (set in managed settings: only their domains count),
`network.deniedDomains` (`!` denials of that list, taking precedence; they need an
`allowedDomains` in some file, since only a list can carry them),
`excludedCommands` (commands run outside the sandbox, patterns as in Bash permission rules),
`allowUnsandboxedCommands` (whether `dangerouslyDisableSandbox` takes a call out of the
sandbox; hookagent's default is false, Claude Code's true: say true to have it) and
`autoAllowBashIfSandboxed` (default true: `Approvals` allows a sandboxed call it would ask
about; see `placement.py`). Paths take Claude Code's prefixes: `//` absolute, `~/`
the home folder, `/` the settings file's folder, anything else the project folder. A key
hookagent cannot honour is a `ConfigError` naming the file and the key, unless it holds the
value that changes nothing (`network.allowUnixSockets: []`, ...): `network.allowUnixSockets`
and `allowAllUnixSockets: true` (no Unix socket can be made in the sandbox),
`network.allowLocalBinding: false` (a command may always listen on its sandbox's own
loopback, which nothing outside reaches; `true` is accepted),
`network.httpProxyPort` and `socksProxyPort` (hookagent runs its own proxy for each call),
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

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.capabilities.bash._domains import DomainPattern
from hookagent.capabilities.bash._placement import Exclusions
from hookagent.capabilities.bash._sandbox import SandboxMode

__all__ = ["SandboxSettings", "read_sandbox_settings"]

PRECEDENCE: Final = {"user": 1, "project": 2, "local": 3, "explicit": 4, "managed": 5}

_FLAGS: Final = (
    "enabled",
    "failIfUnavailable",
    "allowUnsandboxedCommands",
    "autoAllowBashIfSandboxed",
)
"""The boolean keys, decided by the file of highest precedence."""
_WHY: Final = {
    "network.allowUnixSockets": "no Unix socket can be made in the sandbox",
    "network.allowAllUnixSockets": "no Unix socket can be made in the sandbox",
    "network.allowLocalBinding": (
        "a command may always listen on its sandbox's own loopback (nothing outside reaches it)"
    ),
    "network.httpProxyPort": "hookagent runs its own proxy for each call",
    "network.socksProxyPort": "hookagent runs its own proxy for each call",
    "filesystem.denyWrite": "write-only denials are not supported; use denyRead",
}
_NETWORK_INERT: Final[dict[str, tuple[object, ...]]] = {
    "allowUnixSockets": (None, []),
    "allowAllUnixSockets": (None, False),
    "allowLocalBinding": (None, True),
    "httpProxyPort": (None,),
    "socksProxyPort": (None,),
}
"""Network keys hookagent cannot honour, with the values that ask nothing of it."""


@final
@dataclass(slots=True)
class SandboxSettings:
    """What the settings files ask of the sandbox; None: they do not say."""

    mode: SandboxMode | None = None
    writable: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    domains: list[str] | None = None
    """`network.allowedDomains` of every file (None: no file has the key)."""
    denied: list[str] = field(default_factory=list)
    """`network.deniedDomains` of every file, as `!` patterns."""
    denied_in: tuple[Path, str] | None = None
    """Where the first of them was, for the error when there is no list to carry them."""
    managed_domains: list[str] | None = None
    """Those of managed files alone, used when `managed_only`."""
    managed_only: bool = False
    excluded: list[str] = field(default_factory=list)
    """`excludedCommands` of every file."""
    allow_unsandboxed: bool = False
    auto_allow: bool = True


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
            if key in _FLAGS:
                if not isinstance(value, bool):
                    raise where.error(f"sandbox.{key}", "must be true or false", value)
                rank = PRECEDENCE.get(kind, 0)
                if key not in deciding or rank >= deciding[key][0]:
                    deciding[key] = (rank, value)
            else:
                _read_key(where, key, value, found, kind)
    if found.managed_only:
        found.domains = found.managed_domains or []
    if found.denied and found.domains is None:
        assert found.denied_in is not None
        raise ConfigError(
            "needs sandbox.network.allowedDomains in some settings file: only a domain list "
            "can carry denials",
            file=str(found.denied_in[0]),
            key=found.denied_in[1],
            value=found.denied,
        )
    if found.domains is not None:
        found.domains = [*found.domains, *found.denied]
    found.allow_unsandboxed = deciding.get("allowUnsandboxedCommands", (0, False))[1]
    found.auto_allow = deciding.get("autoAllowBashIfSandboxed", (0, True))[1]
    enabled = deciding.get("enabled", (0, None))[1]
    if enabled is False:
        found.mode = "off"
    elif deciding.get("failIfUnavailable", (0, False))[1]:
        found.mode = "required"
    elif enabled:
        found.mode = "auto"
    return found


def _read_key(where: _Where, key: str, value: object, found: SandboxSettings, kind: str) -> None:
    if key == "excludedCommands":
        Exclusions.build(value, key="sandbox.excludedCommands", file=str(where.file))
        assert isinstance(value, list)  # checked just above
        found.excluded += [item for item in value if item not in found.excluded]
    elif key == "network":
        _read_network(where, value, found, kind)
    elif key == "filesystem":
        _read_filesystem(where, value, found)
    else:
        raise where.error(f"sandbox.{key}", "is not a sandbox setting hookagent knows", value)


@record(kw_only=False)
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


def _read_network(where: _Where, value: object, found: SandboxSettings, kind: str) -> None:
    if not isinstance(value, dict):
        raise where.error("sandbox.network", "must be an object", value)
    for key, item in value.items():
        name = f"sandbox.network.{key}"
        if key == "allowedDomains":
            domains = _domains(where, name, item)
            found.domains = [*(found.domains or []), *domains]
            if kind == "managed":
                found.managed_domains = [*(found.managed_domains or []), *domains]
        elif key == "deniedDomains":
            found.denied += [f"!{domain}" for domain in _domains(where, name, item)]
            found.denied_in = found.denied_in or (where.file, name)
        elif key == "allowManagedDomainsOnly":
            if not isinstance(item, bool):
                raise where.error(name, "must be true or false", item)
            if item and kind != "managed":
                raise where.error(name, "takes effect only in managed settings", item)
            found.managed_only = found.managed_only or item
        elif key not in _NETWORK_INERT:
            raise where.error(name, "is not a sandbox setting hookagent knows", item)
        elif item not in _NETWORK_INERT[key]:
            raise where.error(name, f"is not supported: {_WHY[f'network.{key}']}", item)


def _domains(where: _Where, name: str, items: object) -> list[str]:
    """`allowedDomains` checked: each a pattern `DomainPattern` reads."""
    if not isinstance(items, list):
        raise where.error(name, "must be a list of domains", items)
    domains: list[str] = []
    for item in items:
        try:
            domains.append(str(DomainPattern.parse(item)))
        except ValueError as exc:
            raise where.error(name, str(exc), item) from None
    return domains


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

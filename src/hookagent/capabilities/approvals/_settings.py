"""`permissions.allow` / `deny` / `ask` in Claude Code settings files: read, and appended to.

The files are the ones Claude Code reads for a project (`.claude/settings.json`, shared, and
`.claude/settings.local.json`, personal), so rules written by either tool apply in both. Only
the `permissions` lists are read here (the hooks in the same files are `with_settings`'s
business); a file that is not JSON, or lists that are not lists of rules, are a `ConfigError`
naming the file and the JSON path.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from hookagent._errors import ConfigError
from hookagent.capabilities.approvals._rules import CompiledRule, Decision
from hookagent.claude._json_file import read_json
from hookagent.claude._rules import compile_rule
from hookagent.claude._sources import standard_locations

__all__ = ["LISTS", "append_allow_rules", "read_permissions", "read_project_permissions"]

LISTS: Final[tuple[Decision, ...]] = ("deny", "ask", "allow")
"""The `permissions` keys holding rules (each a list of rule strings)."""
_PROJECT: Final = frozenset({"project", "local"})
"""The settings files of the project itself; the user's and managed ones are not read."""


def read_permissions(path: Path) -> list[CompiledRule]:
    """The rules `path` lists under `permissions`; none if the file does not exist."""
    name = os.fspath(path)
    data = read_json(path, name, missing_ok=True)
    if data is None:
        return []
    if not isinstance(data, dict):
        raise ConfigError(f"must be a JSON object, got {_kind(data)}", file=name)
    permissions = data.get("permissions")
    if permissions is None:
        return []
    if not isinstance(permissions, dict):
        raise ConfigError(
            f'must be an object with "allow", "deny" and "ask" lists, got {_kind(permissions)}',
            file=name,
            key="permissions",
            value=permissions,
        )
    rules: list[CompiledRule] = []
    for decision in LISTS:
        where = f"permissions.{decision}"
        items = permissions.get(decision)
        if items is None:
            continue
        if not isinstance(items, list):
            raise ConfigError(
                f'must be a list of permission rules such as "Bash(git status:*)", '
                f"got {_kind(items)}",
                file=name,
                key=where,
                value=items,
            )
        for index, item in enumerate(items):
            key = f"{where}[{index}]"
            if not isinstance(item, str):
                raise ConfigError(
                    f"a permission rule must be a string, got {_kind(item)}",
                    file=name,
                    key=key,
                    value=item,
                )
            try:
                compiled = compile_rule(item)
            except ValueError as exc:
                raise ConfigError(str(exc), file=name, key=key, value=item) from None
            rules.append(CompiledRule(rule=compiled, decision=decision, file=name, key=key))
    return rules


def read_project_permissions(
    project_dir: Path, save_to: Path | None
) -> tuple[tuple[str, ...], tuple[CompiledRule, ...]]:
    """The files read and their rules, in order: the project's shared and local settings,
    then `save_to`; a file is read once however many names reach it."""
    paths = [p for p, kind in standard_locations(project_dir) if kind in _PROJECT]
    if save_to is not None:
        paths.append(save_to)
    files: list[str] = []
    rules: list[CompiledRule] = []
    seen: set[Path] = set()
    for path in paths:
        real = path.resolve()
        if real in seen or not path.is_file():
            continue
        seen.add(real)
        files.append(os.fspath(path))
        rules.extend(read_permissions(path))
    return tuple(files), tuple(rules)


def append_allow_rules(path: Path, texts: Iterable[str]) -> list[str]:
    """Add `texts` to `permissions.allow` in `path` (created with its folders if needed),
    keeping every other key; the keys of the rules as written (``permissions.allow[3]``).

    The file is replaced atomically (a temporary file in the same folder, renamed over it),
    so a reader never sees half of it. A rule already listed is not added twice.
    """
    name = os.fspath(path)
    data = read_json(path, name, missing_ok=True)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"must be a JSON object, got {_kind(data)}", file=name)
    permissions = data.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise ConfigError("must be an object", file=name, key="permissions", value=permissions)
    allow = permissions.setdefault("allow", [])
    if not isinstance(allow, list):
        raise ConfigError("must be a list", file=name, key="permissions.allow", value=allow)
    keys: list[str] = []
    for text in texts:
        if text not in allow:
            allow.append(text)
        keys.append(f"permissions.allow[{allow.index(text)}]")
    _write_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return keys


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(OSError):
            os.chmod(temp, _mode_of(path))
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _mode_of(path: Path) -> int:
    """The existing file's permissions; a new file is readable by all, as editors make it
    (`mkstemp` alone would leave it private)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return 0o644


def _kind(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."

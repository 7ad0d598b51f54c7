"""A Claude Code plugin folder, read as Claude Code reads it.

`.claude-plugin/plugin.json` names the plugin (`name`, required) and may point at more
components: `commands`, `agents`, `skills` (a path or a list of paths, added to the default
folders), `hooks` (a path, a list of paths or the hooks object itself, added to
`hooks/hooks.json`) and `mcpServers` (a path, a list, or the servers object, added to
`.mcp.json`). Paths are relative to the plugin's folder. Descriptive keys (`version`,
`description`, `author`…) are read by nobody; components hookagent does not load
(`outputStyles`, `lspServers`, `userConfig`…) are listed as not honoured.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.claude._json_file import parse_json

__all__ = ["Plugin", "load_plugin"]

_DESCRIPTIVE: Final = frozenset(
    {
        "$schema",
        "name",
        "version",
        "description",
        "author",
        "homepage",
        "repository",
        "license",
        "keywords",
        "category",
        "tags",
        "strict",
        "source",
    }
)
_COMPONENTS: Final = ("commands", "agents", "skills", "hooks", "mcpServers")


@record
class Plugin:
    name: str
    root: str
    manifest: str
    hook_files: tuple[str, ...] = ()
    inline_hooks: Mapping[str, Any] | None = None
    """`plugin.json`'s `hooks` object, when given inline."""
    command_dirs: tuple[str, ...] = ()
    agent_dirs: tuple[str, ...] = ()
    skill_dirs: tuple[str, ...] = ()
    mcp_files: tuple[str, ...] = ()
    inline_mcp: Mapping[str, Any] | None = None
    not_honoured: tuple[str, ...] = ()


def load_plugin(folder: str) -> Plugin:
    """The plugin in `folder`; a `ConfigError` naming the file for a missing folder, a
    missing or malformed `plugin.json`, or a component path that does not exist."""
    root = Path(folder).expanduser().absolute()
    if not root.is_dir():
        raise ConfigError("plugin folder not found", file=str(root))
    manifest = root / ".claude-plugin" / "plugin.json"
    data = _manifest(manifest)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(
            "must name the plugin: a non-empty string", file=str(manifest), key="name"
        )
    extra: dict[str, list[str]] = {}
    inline: dict[str, Mapping[str, Any]] = {}
    for key in _COMPONENTS:
        value = data.get(key)
        if isinstance(value, dict) and key in ("hooks", "mcpServers"):
            inline[key] = value
        elif value is not None:
            extra[key] = [
                str(_component(root, manifest, key, v)) for v in _paths(manifest, key, value)
            ]
    not_honoured = tuple(
        f"{manifest}, {key}: a plugin component hookagent does not load"
        for key in data
        if key not in _DESCRIPTIVE and key not in _COMPONENTS
    )

    def present(*paths: Path) -> tuple[str, ...]:
        return tuple(str(p) for p in paths if p.exists())

    return Plugin(
        name=name,
        root=str(root),
        manifest=str(manifest),
        hook_files=(*present(root / "hooks" / "hooks.json"), *extra.get("hooks", [])),
        inline_hooks=inline.get("hooks"),
        command_dirs=(*present(root / "commands"), *extra.get("commands", [])),
        agent_dirs=(*present(root / "agents"), *extra.get("agents", [])),
        skill_dirs=(*present(root / "skills"), *extra.get("skills", [])),
        mcp_files=(*present(root / ".mcp.json"), *extra.get("mcpServers", [])),
        inline_mcp=inline.get("mcpServers"),
        not_honoured=not_honoured,
    )


def _manifest(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(
            "not a Claude Code plugin: .claude-plugin/plugin.json is missing", file=str(path)
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", file=str(path)) from None
    data = parse_json(text, str(path))
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object", file=str(path))
    return data


def _paths(manifest: Path, key: str, value: object) -> list[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise ConfigError(
            "must be a path or a list of paths (relative to the plugin's folder)",
            file=str(manifest),
            key=key,
            value=value,
        )
    return items


def _component(root: Path, manifest: Path, key: str, path: str) -> Path:
    where = (root / path).resolve()
    if not where.exists():
        raise ConfigError(f"{path} does not exist in the plugin", file=str(manifest), key=key)
    return where

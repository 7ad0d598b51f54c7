"""A Claude Code project as a whole: everything it carries, found and judged in one place.

`load_project` reads the project's instruction files (`instructions`), its settings files
and the user's (hooks, permission rules, `env`, the MCP switches), `.mcp.json`,
`.claude/agents/`, `.claude/skills/`, `.claude/commands/`, and the plugin folders given,
and sorts every settings key into honoured, not honoured but optional in Claude Code too (a
warning: display, account and model choices), and not honoured where that would change what
the agent may do (an error, which the caller refuses unless told to run without them). Keys
neither list knows are warnings: Claude Code ignores keys it does not know as well.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, Final

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.claude._commands import SlashCommand, load_commands, load_skill_commands
from hookagent.claude._instructions import Instructions, load_instructions
from hookagent.claude._model import LoadedSettings, SettingsSource, SourceKind
from hookagent.claude._plugin import Plugin, load_plugin
from hookagent.claude._settings import FileSettings, load_file, parse_settings
from hookagent.claude._sources import load_settings_file, merge, standard_locations

__all__ = ["ClaudeProject", "load_project"]

_HONOURED: Final = frozenset(
    {
        "$schema",
        "hooks",
        "disableAllHooks",
        "allowManagedHooksOnly",
        "allowedHttpHookUrls",
        "httpHookAllowedEnvVars",
        "permissions",
        "env",
        "sandbox",
        "enableAllProjectMcpServers",
        "enabledMcpjsonServers",
        "disabledMcpjsonServers",
    }
)
_OPTIONAL: Final[Mapping[str, str]] = {
    "model": "the run's --model answers",
    "statusLine": "hookagent has no status line",
    "outputStyle": "hookagent has no output styles",
    "theme": "display only",
    "spinnerTipsEnabled": "display only",
    "spinnerVerbs": "display only",
    "showTurnDuration": "display only",
    "language": "display only",
    "includeCoAuthoredBy": "hookagent writes no commits of its own",
    "attribution": "hookagent writes no commits of its own",
    "includeGitInstructions": "hookagent adds no git instructions",
    "cleanupPeriodDays": "runs are kept in the store until deleted",
    "alwaysThinkingEnabled": "the provider's settings decide",
    "apiKeyHelper": "the model's provider reads its own key",
    "awsAuthRefresh": "the model's provider reads its own credentials",
    "awsCredentialExport": "the model's provider reads its own credentials",
    "forceLoginMethod": "hookagent has no login",
    "forceLoginOrgUUID": "hookagent has no login",
    "companyAnnouncements": "display only",
    "feedbackSurveyState": "display only",
    "autoUpdatesChannel": "hookagent is updated by its package manager",
    "otelHeadersHelper": "hookagent traces through its own exporter",
    "respectGitignore": "the file tools decide",
    "fileSuggestion": "display only",
    "plansDirectory": "hookagent has no plan mode",
    "extraKnownMarketplaces": "plugins are given with --claude-plugin",
}
_PERMISSION_KEYS: Final = frozenset(
    {"allow", "ask", "deny", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode"}
)


@record
class ClaudeProject:
    root: str
    instructions: Instructions
    settings: LoadedSettings
    """The hooks of every settings file and plugin, merged as Claude Code merges them."""
    user_settings: str | None
    """The user's settings file when it exists (its permission rules join the project's)."""
    env: Mapping[str, str]
    agent_dirs: tuple[str, ...]
    skill_dirs: tuple[str, ...]
    commands: Mapping[str, SlashCommand]
    mcp_files: tuple[tuple[str, str | None], ...]
    """`.mcp.json` files with the plugin folder each belongs to (None: the project's)."""
    plugins: tuple[Plugin, ...]
    warnings: tuple[str, ...] = ()
    """Found and not honoured where Claude Code treats it as optional, or noted."""
    errors: tuple[str, ...] = ()
    """Found and not honoured where that changes what the agent may do."""
    mcp_filter: Mapping[str, Any] = field(default_factory=dict)

    @property
    def files(self) -> tuple[str, ...]:
        return (*self.settings.files, *(f.path for f in self.instructions.files))


def load_project(
    project_dir: str | None,
    plugin_dirs: Sequence[str] = (),
    *,
    explicit: Sequence[str] = (),
    home: str | None = None,
    managed_dir: str | None = None,
) -> ClaudeProject:
    """Everything a Claude Code session in `project_dir` (None: only the plugins) loads."""
    home_dir = Path(home if home is not None else Path.home())
    plugins = tuple(load_plugin(p) for p in plugin_dirs)
    root = Path(project_dir).expanduser().absolute() if project_dir is not None else None
    if root is not None and not root.is_dir():
        raise ConfigError("Claude Code project folder not found", file=str(root))
    files: list[FileSettings] = []
    raw: list[tuple[str, SourceKind, dict[str, Any]]] = []
    if root is not None:
        for path, kind in standard_locations(root, home=home_dir, managed_dir=managed_dir):
            if path.is_file():
                files.append(load_file(path, kind))
                raw.append((str(path), kind, _json(path)))
    for file in explicit:  # --settings: a plugin's hooks file is read as the plugin's
        files.append(load_settings_file(file))
    for plugin in plugins:
        files += [load_file(f, "plugin", plugin_root=plugin.root) for f in plugin.hook_files]
        if plugin.inline_hooks is not None:
            source = SettingsSource(path=plugin.manifest, kind="plugin", plugin_root=plugin.root)
            files.append(parse_settings({"hooks": plugin.inline_hooks}, source))
    judged = _Judge(raw, plugins)
    user = home_dir / ".claude"
    project = root / ".claude" if root is not None else None
    commands, notes = _commands(user, project, plugins)
    return ClaudeProject(
        root=str(root) if root is not None else os.getcwd(),
        instructions=(
            load_instructions(root, home=home_dir, managed_dir=managed_dir)
            if root is not None
            else Instructions()
        ),
        settings=merge(files),
        user_settings=str(user / "settings.json")
        if root is not None and (user / "settings.json").is_file()
        else None,
        env=judged.env,
        agent_dirs=_existing(
            user / "agents" if root is not None else None,
            *(Path(d) for p in plugins for d in p.agent_dirs),
            project / "agents" if project is not None else None,
        ),
        skill_dirs=_existing(
            user / "skills" if root is not None else None,
            project / "skills" if project is not None else None,
            *(Path(d) for p in plugins for d in p.skill_dirs),
        ),
        commands=commands,
        mcp_files=(
            *(
                ((str(root / ".mcp.json"), None),)
                if root and (root / ".mcp.json").is_file()
                else ()
            ),
            *((f, p.root) for p in plugins for f in p.mcp_files),
        ),
        plugins=plugins,
        warnings=(*judged.warnings, *notes, *(n for p in plugins for n in p.not_honoured)),
        errors=(*judged.errors, *_mcp_refused(plugins)),
        mcp_filter=judged.mcp_filter,
    )


class _Judge:
    """Sorts the keys of the raw settings files; collects `env` and the MCP switches, later
    files (higher precedence) over earlier ones, managed last."""

    def __init__(
        self, raw: Iterable[tuple[str, SourceKind, dict[str, Any]]], plugins: Sequence[Plugin]
    ):
        self.env: dict[str, str] = {}
        self.warnings: list[str] = []
        self.errors: list[str] = []
        self.mcp_filter: dict[str, Any] = {}
        given = {p.name for p in plugins}
        ordered = sorted(raw, key=lambda r: r[1] == "managed")  # managed decides last
        for path, _kind, data in ordered:
            for key, value in data.items():
                self._key(path, key, value, given)

    def _key(self, path: str, key: str, value: Any, plugins: set[str]) -> None:
        if key == "env":
            if not isinstance(value, dict):
                raise ConfigError("must be an object of strings", file=path, key="env", value=value)
            self.env.update({str(k): str(v) for k, v in value.items()})
        elif key == "permissions" and isinstance(value, dict):
            self._permissions(path, value)
        elif key in (
            "enableAllProjectMcpServers",
            "enabledMcpjsonServers",
            "disabledMcpjsonServers",
        ):
            self.mcp_filter[key] = value
        elif key == "enabledPlugins" and isinstance(value, dict):
            for plugin_id, on in value.items():
                name = str(plugin_id).split("@", 1)[0]
                if on is True and name not in plugins:
                    self.errors.append(
                        f"{path}, enabledPlugins.{plugin_id}: hookagent installs no plugins; "
                        f"give the plugin's folder with --claude-plugin"
                    )
        elif key in _OPTIONAL:
            self.warnings.append(f"{path}, {key}: not honoured ({_OPTIONAL[key]})")
        elif key not in _HONOURED:
            self.warnings.append(f"{path}, {key}: unknown to hookagent, not honoured")

    def _permissions(self, path: str, value: dict[str, Any]) -> None:
        mode = value.get("defaultMode")
        if mode == "plan":
            self.errors.append(
                f"{path}, permissions.defaultMode: plan mode (no edits, no commands) is not "
                "enforced by hookagent; use --read-only without --allow-bash"
            )
        elif mode not in (None, "default"):
            self.warnings.append(
                f"{path}, permissions.defaultMode: {mode} not honoured; calls are decided as "
                "in default mode (rules, then questions), which is stricter"
            )
        if "additionalDirectories" in value:
            self.warnings.append(
                f"{path}, permissions.additionalDirectories: not honoured; the file tools "
                "stay confined to their root, which is stricter"
            )
        for key in value:
            if key not in _PERMISSION_KEYS:
                self.warnings.append(f"{path}, permissions.{key}: unknown to hookagent")


def _commands(
    user: Path, project: Path | None, plugins: Sequence[Plugin]
) -> tuple[dict[str, SlashCommand], list[str]]:
    """Commands and user-invocable skills by name. The project's command replaces the
    user's; a skill replaces a command of its name (the user's skill the project's);
    a plugin's are `plugin:name`, and `name` too when nothing else has that name."""
    notes: list[str] = []
    found: dict[str, SlashCommand] = {}
    if project is not None:
        for command in (
            *load_commands(user / "commands", "user", warnings=notes),
            *load_commands(project / "commands", "project", warnings=notes),
            *_skills(project / "skills", "project", notes),
            *_skills(user / "skills", "user", notes),
        ):
            if (earlier := found.get(command.name)) is not None:
                notes.append(f"{command.path}: /{command.name} replaces {earlier.path}")
            found[command.name] = command
    namespaced = _plugin_commands(plugins, notes)
    found.update(namespaced)
    bare: dict[str, list[SlashCommand]] = {}
    for command in namespaced.values():
        bare.setdefault(command.name.split(":", 1)[1], []).append(command)
    for name, same in bare.items():
        if name not in found and len(same) == 1:
            found[name] = same[0]
    return found, notes


def _plugin_commands(plugins: Sequence[Plugin], notes: list[str]) -> dict[str, SlashCommand]:
    """`plugin:name` for each command, then each skill (a skill replacing a command)."""
    found: dict[str, SlashCommand] = {}
    for plugin in plugins:
        source, prefix = f"plugin:{plugin.name}", f"{plugin.name}:"
        for folder in plugin.command_dirs:
            commands = load_commands(
                Path(folder), source, prefix=prefix, plugin_root=plugin.root, warnings=notes
            )
            found.update((c.name, c) for c in commands)
        for folder in plugin.skill_dirs:
            skills = _skills(Path(folder), source, notes, prefix, plugin.root)
            found.update((c.name, c) for c in skills)
    return found


def _skills(
    folder: Path, source: str, notes: list[str], prefix: str = "", plugin_root: str | None = None
) -> list[SlashCommand]:
    if not folder.is_dir():
        return []
    from hookagent.capabilities.skills import SkillLibrary

    library = SkillLibrary.scan(folder)  # its unreadable files are named where skills load
    named = ((skill.name, skill.path) for skill in library)
    return load_skill_commands(
        named, source, prefix=prefix, plugin_root=plugin_root, warnings=notes
    )


def _mcp_refused(plugins: Sequence[Plugin]) -> list[str]:
    return [
        f"{p.manifest}, mcpServers: MCP servers written in plugin.json are not started; "
        "put them in the plugin's .mcp.json"
        for p in plugins
        if p.inline_mcp is not None
    ]


def _existing(*paths: Path | None) -> tuple[str, ...]:
    return tuple(str(p) for p in paths if p is not None and p.is_dir())


def _json(path: Path) -> dict[str, Any]:
    """The file's object (`load_file` has checked it is one; empty is {})."""
    text = path.read_text(encoding="utf-8-sig")
    data = json.loads(text) if text.strip() else {}
    return data if isinstance(data, dict) else {}

"""`--claude-project [DIR]` and `--claude-plugin DIR`: a Claude Code project and plugin
folders, run as they are.

`install_project` gives the builder everything `sessions.project_files.load_project` found: the
instruction files after `--system` in the system prompt; the hooks of every settings file,
plugin and `--settings` file; the permission rules (project, local and the user's) through
`Approvals`; `env` in the process's environment, which hooks and tools inherit; the
subagents, skills and path-scoped rules. What it will not honour is printed as a warning,
or, where that changes what the agent may do, refused (exit 2) unless
`--allow-unsupported-hooks`. `expand_prompt` turns `/name args` into the command's prompt.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hookagent._errors import ConfigError
from hookagent.claude._commands import expand, find_command
from hookagent.sessions._project_files import ClaudeProject, load_project
from hookagent.sessions._warn import warn

if TYPE_CHECKING:
    from hookagent._builder import AgentBuilder
    from hookagent.capabilities.mcp import MCP
    from hookagent.capabilities.mcp._claude_config import MCPConfigs
    from hookagent.claude._options import ClaudeHookOptions
    from hookagent.sessions._agent_spec import RunOptions

__all__ = [
    "expand_prompt",
    "install_project",
    "prepare",
    "project_of",
    "project_report",
    "with_project_mcp",
]


def project_of(options: RunOptions) -> ClaudeProject:
    """The project and plugins `options` name."""
    root = options.claude_project
    if root is not None and not os.path.isabs(root):
        root = os.path.join(options.cwd or os.getcwd(), root)
    cwd = options.cwd or os.getcwd()
    plugins = [os.path.join(cwd, p) for p in options.claude_plugins]
    return load_project(root, plugins, explicit=[os.path.join(cwd, f) for f in options.settings])


def expand_prompt(options: RunOptions) -> RunOptions:
    """`options` with a `/name args` prompt replaced by the command's expansion; unchanged
    for another prompt, or with no project or plugin."""
    prompt = options.prompt.strip()
    if not prompt.startswith("/") or not (options.claude_project or options.claude_plugins):
        return options
    name, _, args = prompt[1:].partition(" ")
    if not name or "/" in name:  # a path, not a command
        return options
    project = project_of(options)
    expansion = expand(find_command(project.commands, name), args.strip(), cwd=project.root)
    return replace(options, prompt=expansion.prompt, expansion=expansion)


def install_project(
    builder: AgentBuilder,
    options: RunOptions,
    warn: Callable[[str], object],
    mcp: MCP | None = None,
) -> ClaudeProject:
    """Give `builder` the project and plugins of `options` (see the module's docstring)."""
    project = project_of(options)
    for line in project.warnings:
        warn(line)
    if project.errors and not options.allow_unsupported_hooks:
        raise ConfigError(
            "the Claude Code project uses what hookagent does not honour: "
            + "; ".join(project.errors)
            + " (--allow-unsupported-hooks runs without it)"
        )
    for line in project.errors:
        warn(f"{line}; not honoured")
    os.environ.update(project.env)
    prompt = "\n\n".join(p for p in (options.system, project.instructions.prompt) if p)
    if prompt:
        builder.system_prompt(prompt)
    hook_options = _hook_options(project, options, mcp)
    _hooks(builder, project, options, warn, hook_options)
    _permissions(builder, project, options)
    _components(builder, project, warn, hook_options)
    return project


def _hooks(
    builder: AgentBuilder,
    project: ClaudeProject,
    options: RunOptions,
    warn: Callable[[str], object],
    hook_options: ClaudeHookOptions,
) -> None:
    """The hooks of every settings file and plugin."""
    from hookagent.claude._bridge import ClaudeHooks

    builder.with_(
        ClaudeHooks(
            project.settings,
            hook_options,
            allow_unsupported=options.allow_unsupported_hooks,
            warn=warn,
        )
    )


def _hook_options(
    project: ClaudeProject, options: RunOptions, mcp: MCP | None
) -> ClaudeHookOptions:
    """How the project's hooks run, those of settings files and of skills' and subagents'
    front matter alike: `mcp_tool` handlers call the run's MCP servers over its
    connections."""
    from hookagent.claude._options import ClaudeHookOptions

    return ClaudeHookOptions(
        project_dir=project.root,
        instructions=project.instructions.files,
        expansion=options.expansion,
        mcp_servers={} if mcp is None else {n: mcp.connection(n) for n in mcp.servers},
        setup="init" if options.init else None,
    )


def _permissions(builder: AgentBuilder, project: ClaudeProject, options: RunOptions) -> None:
    """The project's and local rules (`Approvals` reads them), the user's, and the
    `allowed-tools` of the command the prompt came from, for this run."""
    if options.claude_project is None:  # --approvals alone: installed as without a project
        return
    from pathlib import Path

    from hookagent.capabilities.approvals import Approvals, Rule
    from hookagent.capabilities.approvals._settings import read_permissions

    rules = []
    if project.user_settings is not None:
        rules += [
            Rule(r.rule.source, r.decision) for r in read_permissions(Path(project.user_settings))
        ]
    if options.expansion is not None:
        rules += [Rule(t, "allow") for t in options.expansion.command.allowed_tools]
    builder.with_(Approvals(rules, project_dir=project.root))


def _components(
    builder: AgentBuilder,
    project: ClaudeProject,
    warn: Callable[[str], object],
    hook_options: ClaudeHookOptions,
) -> None:
    """Agents (the user's, the plugins', then the project's, later replacing earlier) and
    skills (the user's, the project's, then the plugins', earlier winning), their
    front-matter hooks run as the project's are; each file that cannot be read is in the
    builder's warnings, which `build_agent` prints."""
    for line in project.instructions.warnings:
        warn(line)
    if project.agent_dirs:
        from hookagent.capabilities.subagents import AgentRegistry, Subagents

        registry = AgentRegistry.from_dirs(*project.agent_dirs)
        builder.with_(Subagents(registry, hook_options=hook_options))
    if project.skill_dirs:
        from hookagent.capabilities.skills import Skills

        builder.with_(Skills(*project.skill_dirs, hook_options=hook_options))
    if project.instructions.path_rules:
        from hookagent.claude._path_rules import PathRules

        builder.with_(PathRules(project.instructions.path_rules, project.root))


def project_report(project: ClaudeProject) -> dict[str, Any]:
    """What `hooks check --claude-project` adds to its report: everything found."""
    instructions = project.instructions
    return {
        "root": project.root,
        "instructions": [
            {
                "file": f.path,
                "memory_type": f.memory_type,
                "load_reason": f.load_reason,
                **({"imported_by": f.parent} if f.parent else {}),
            }
            for f in instructions.files
        ],
        "path_rules": [{"file": f.path, "paths": list(f.globs)} for f in instructions.path_rules],
        "permissions": _permission_rules(project),
        "env": sorted(project.env),
        "agents": _agents(project),
        "skills": _skills(project),
        "commands": [
            {
                "name": "/" + name,
                "file": c.path,
                "source": c.source,
                "description": c.description,
                **({"argument_hint": c.argument_hint} if c.argument_hint else {}),
            }
            for name, c in sorted(project.commands.items())
        ],
        "mcp": [
            {"name": name, "file": server.file}
            for name, server in project_mcp(project).servers.items()
        ],
        "plugins": [{"name": p.name, "root": p.root} for p in project.plugins],
        "not_honoured": list(project.errors),
    }


def prepare(options: RunOptions) -> RunOptions:
    """`options` ready to run a project: its folder checked, the file tools' root defaulting
    to it, and a `/name args` prompt expanded."""
    if options.claude_project is not None:
        folder = os.path.join(
            options.cwd or os.getcwd(), os.path.expanduser(options.claude_project)
        )
        if not os.path.isdir(folder):
            raise ConfigError(
                f"--claude-project: {options.claude_project} is not a folder",
                key="--claude-project",
            )
        options = replace(options, claude_project=os.path.abspath(folder))
        if options.root is None:
            options = replace(options, root=options.claude_project)
    return expand_prompt(options)


def _permission_rules(project: ClaudeProject) -> list[dict[str, Any]]:
    """The permission rules in force: the user's, the project's, the local ones."""
    from pathlib import Path

    from hookagent.capabilities.approvals._settings import read_permissions
    from hookagent.claude._sources import standard_locations

    files = [str(p) for p, kind in standard_locations(project.root) if kind in ("project", "local")]
    if project.user_settings is not None:
        files.insert(0, project.user_settings)
    return [
        {"rule": r.rule.source, "decision": r.decision, "where": f"{r.file}:{r.key}"}
        for file in files
        for r in read_permissions(Path(file))
    ]


def _agents(project: ClaudeProject) -> list[dict[str, Any]]:
    from hookagent.capabilities.subagents import AgentRegistry

    registry = AgentRegistry.from_dirs(*project.agent_dirs)
    found: list[dict[str, Any]] = [
        {"name": a.name, "file": a.source, "model": a.model} for a in registry.specs.values()
    ]
    return found + [{"warning": w} for w in registry.warnings]


def _skills(project: ClaudeProject) -> list[dict[str, Any]]:
    if not project.skill_dirs:
        return []
    from hookagent.capabilities.skills import SkillLibrary

    library = SkillLibrary.scan(*project.skill_dirs)
    found: list[dict[str, Any]] = [{"name": s.name, "file": str(s.path)} for s in library]
    return found + [{"warning": w} for w in library.warnings]


def project_mcp(project: ClaudeProject) -> MCPConfigs:
    """The servers of the project's `.mcp.json` that its settings enable
    (`enableAllProjectMcpServers`, `enabledMcpjsonServers`, `disabledMcpjsonServers`; all
    but the disabled ones when none says), then of each plugin's `.mcp.json` with
    `${CLAUDE_PLUGIN_ROOT}` set; a wrong entry is a warning that keeps the others."""
    from hookagent.capabilities.mcp._claude_config import MCPConfigs, load_mcp_configs

    servers: dict[str, Any] = {}
    warnings: list[str] = []
    for file, plugin_root in project.mcp_files:
        found = load_mcp_configs([file], plugin_root=plugin_root, strict=False)
        warnings += found.warnings
        for name, server in found.servers.items():
            why = None if plugin_root is not None else _not_enabled(name, project.mcp_filter)
            if why is not None:
                warnings.append(
                    f"MCP server {name!r} of {file} is not enabled ({why}); not started"
                )
                continue
            if name in servers:
                warnings.append(
                    f"MCP server {name!r} of {servers[name].file} is replaced by the one of {file}"
                )
            servers[name] = server
    return MCPConfigs(servers, tuple(warnings))


def with_project_mcp(options: RunOptions, configs: MCPConfigs) -> MCPConfigs:
    """`configs` (`--mcp-config`, discovery) over the servers of the project's and the
    plugins' `.mcp.json` (`project_mcp`), whose warnings are printed."""
    from hookagent.capabilities.mcp._claude_config import MCPConfigs

    found = project_mcp(project_of(options))
    for line in found.warnings:
        warn(line)
    return MCPConfigs({**found.servers, **configs.servers}, found.warnings + configs.warnings)


def _not_enabled(name: str, switches: Any) -> str | None:
    """Why the project's settings leave the server `name` of its `.mcp.json` off, if they do."""
    disabled = switches.get("disabledMcpjsonServers")
    if isinstance(disabled, list) and name in disabled:
        return "disabledMcpjsonServers"
    if switches.get("enableAllProjectMcpServers") is True:
        return None
    enabled = switches.get("enabledMcpjsonServers")
    if isinstance(enabled, list) and name not in enabled:
        return "not in enabledMcpjsonServers"
    return None

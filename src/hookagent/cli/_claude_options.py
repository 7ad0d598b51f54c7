"""The command-line options that name a Claude Code project and plugin folders, shared by
`run` and `hooks check`/`hooks test` (kept apart so importing the CLI stays light)."""

from __future__ import annotations

from typing import Annotated, TypeAlias

import typer

__all__ = ["ClaudePluginOption", "ClaudeProjectOption"]

ClaudeProjectOption: TypeAlias = Annotated[
    str | None,
    typer.Option(
        "--claude-project",
        metavar="DIR",
        help="Run the Claude Code project in DIR (`.`: the current folder) as it is: "
        "CLAUDE.md and its imports, .claude/rules, the settings' hooks, permissions and env, "
        ".claude/agents, .claude/skills, .claude/commands (a prompt /name args runs a command) "
        "and the user's ~/.claude; the file tools work in DIR unless --root says otherwise.",
    ),
]
ClaudePluginOption: TypeAlias = Annotated[
    list[str] | None,
    typer.Option(
        "--claude-plugin",
        metavar="DIR",
        help="A Claude Code plugin folder: its hooks (${CLAUDE_PLUGIN_ROOT} set), agents, "
        "skills and commands (/plugin:name). Repeatable.",
    ),
]

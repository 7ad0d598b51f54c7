"""Options several `hookagent` commands take, declared once so that they read the same in
every command's help."""

from __future__ import annotations

from typing import Annotated, Any

import typer

__all__ = [
    "AddressOpt",
    "AllowBashOpt",
    "HookSettingsOpt",
    "JsonOpt",
    "ModelOpt",
    "PluginsOpt",
    "RootOpt",
    "ScopeOpt",
    "StoreOpt",
    "SystemOpt",
    "plugin_option",
    "settings_option",
    "temporal_option",
]

StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        metavar="URL",
        help="The store: a path, sqlite:///path or postgresql://… "
        "(default: .hookagent/sessions.db).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
# What an agent is built from, in `run` and in `temporal worker` alike.
ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        metavar="PROVIDER:MODEL",
        help="The model, e.g. scripted:turns.json (a JSON list of turns).",
    ),
]
SystemOpt = Annotated[str | None, typer.Option(metavar="TEXT", help="System prompt.")]
RootOpt = Annotated[
    str | None,
    typer.Option(
        metavar="DIR",
        help="Give the agent the file tools (Read, Write, Edit, Glob, Grep, LS), "
        "confined to DIR, and TodoWrite.",
    ),
]
AllowBashOpt = Annotated[
    bool, typer.Option("--allow-bash", help="Also give it Bash, run in --root (default: .).")
]
ScopeOpt = Annotated[
    str,
    typer.Option(
        "--scope",
        metavar="once|run|session",
        help="How far the approval reaches: this question, the same call (tool and "
        "arguments) again in this run, or in any run of the session.",
    ),
]
AddressOpt = Annotated[
    str, typer.Option("--address", metavar="HOST:PORT", help="The Temporal server's address.")
]


def settings_option(help: str) -> Any:
    """`--settings/-s FILE`, repeatable: Claude Code settings files; `help` says what the
    command does with them."""
    return typer.Option("--settings", "-s", metavar="FILE", help=help)


def plugin_option(help: str) -> Any:
    """`--plugin/-p FILE_OR_MODULE`, repeatable: plugins whose configure(builder) adds tools
    and hooks; `help` says what the command does with them."""
    return typer.Option("--plugin", "-p", metavar="FILE_OR_MODULE", help=help)


HookSettingsOpt = Annotated[
    list[str] | None,
    settings_option("A Claude Code settings file whose command hooks run unchanged. Repeatable."),
]
PluginsOpt = Annotated[
    list[str] | None,
    plugin_option(
        "A Python file or module whose configure(builder) adds tools and hooks. Repeatable."
    ),
]


def temporal_option(help: str) -> Any:
    """`--temporal HOST:PORT`: a Temporal server; `help` says what the command does there."""
    return typer.Option("--temporal", metavar="HOST:PORT", help=help)

"""Options several `hookagent` commands take, declared once so that they read the same in
every command's help."""

from __future__ import annotations

from typing import Annotated, Any

import typer

__all__ = ["JsonOpt", "StoreOpt", "plugin_option", "settings_option"]

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


def settings_option(help: str) -> Any:
    """`--settings/-s FILE`, repeatable: Claude Code settings files; `help` says what the
    command does with them."""
    return typer.Option("--settings", "-s", metavar="FILE", help=help)


def plugin_option(help: str) -> Any:
    """`--plugin/-p FILE_OR_MODULE`, repeatable: plugins whose configure(builder) adds tools
    and hooks; `help` says what the command does with them."""
    return typer.Option("--plugin", "-p", metavar="FILE_OR_MODULE", help=help)

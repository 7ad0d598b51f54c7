"""Options several `hookagent` commands take, declared once so that they read the same in
every command's help."""

from __future__ import annotations

from typing import Annotated, Any

import typer

__all__ = [
    "AddressOpt",
    "JsonOpt",
    "StoreOpt",
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


def temporal_option(help: str) -> Any:
    """`--temporal HOST:PORT`: a Temporal server; `help` says what the command does there."""
    return typer.Option("--temporal", metavar="HOST:PORT", help=help)

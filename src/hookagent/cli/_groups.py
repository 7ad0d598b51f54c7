"""`command_group`: the one way the `hookagent` command and its groups are made.

Help is printed as plain text (click's layout), not through rich: rich's help renderer costs
about 60 ms of imports, a quarter of the command's start, on every `--help` and every usage
error, and its boxes add nothing a terminal or a pipe needs.
"""

from __future__ import annotations

import typer

__all__ = ["command_group"]


def command_group(help: str, *, name: str | None = None) -> typer.Typer:
    """A typer app that prints its help when called with nothing, in plain text."""
    return typer.Typer(
        name=name,
        help=help,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )

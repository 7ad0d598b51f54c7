"""The `hookagent` command: `run` a prompt against a model, or watch the `demo`; keep runs
in a store (`run --session`) and handle them later: `sessions`, `approve`, `deny`, `resume`,
`worker` (see `sessions_cmd`). Exit codes are listed in `exits`.

This module only composes the commands, each kept in its own module; so that `--help` stays
light, none of them loads the runtime before a command runs. A command group named first on
the command line (`hookagent hooks test …`) is the only one loaded: typer builds every
command's parameters before parsing, and the others' modules and parameters would cost a
subcommand's start more than typer itself.
"""

from __future__ import annotations

import importlib
import sys
from functools import cache
from typing import TYPE_CHECKING, Annotated, Final

import typer

from hookagent.cli._groups import command_group

if TYPE_CHECKING:
    app: typer.Typer

__all__ = ["app", "main"]

_REGISTERED: Final = ("_run_cmd", "_setup_cmd", "_sessions_cmd", "_serve_cmd")
"""Modules whose `register(app)` adds their commands, in the order help lists them."""
_GROUPS: Final = {
    "hooks": ("_hooks_cmd", "hooks_app"),
    "audit": ("_audit_cmd", "audit_app"),
    "mcp": ("_mcp_cmd", "mcp_app"),
    "temporal": ("_temporal_cmd", "temporal_app"),
}
"""Command groups by name: the module that defines each, and its typer app."""


def _root() -> typer.Typer:
    return command_group(
        "An agent runtime whose loop is a skeleton of deterministic hooks.", name="hookagent"
    )


def _add_group(root: typer.Typer, name: str) -> None:
    module, attribute = _GROUPS[name]
    group = getattr(importlib.import_module(f"hookagent.cli.{module}"), attribute)
    root.add_typer(group, name=name)


def _register(root: typer.Typer, module: str) -> None:
    importlib.import_module(f"hookagent.cli.{module}").register(root)


@cache
def _full_app() -> typer.Typer:
    """Every command, for the top-level help and for commands outside the groups."""
    root = _root()
    _register(root, _REGISTERED[0])
    for name in _GROUPS:
        _add_group(root, name)
    for module in _REGISTERED[1:]:
        _register(root, module)
    root.command()(demo)
    return root


def __getattr__(name: str) -> typer.Typer:
    if name == "app":
        return _full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def demo(
    json_output: Annotated[
        bool, typer.Option("--json", help="No live view: each run's record as one JSON object.")
    ] = False,
) -> None:
    """Four short scripted runs showing hooks block, rewrite, keep going and stop.

    No API key and no network: the model is scripted and the tools are simulated.
    """
    from hookagent.cli._demo import run_demo
    from hookagent.cli._exits import console, guarded

    raise typer.Exit(guarded(lambda: run_demo(console(), json_output=json_output)))


def main() -> None:
    """Console-script entry point: a command group named first is loaded alone (its help,
    usage lines and errors read the same as under the full command)."""
    first = sys.argv[1] if len(sys.argv) > 1 else ""
    if first in _GROUPS:
        root = _root()
        _add_group(root, first)
    else:
        root = _full_app()
    root(prog_name="hookagent")

"""The `hookagent` command: `run` a prompt against a model, or watch the `demo`; keep runs
in a store (`run --session`) and handle them later: `sessions`, `approve`, `deny`, `resume`,
`worker` (see `sessions_cmd`). Exit codes are listed in `exits`.

This module only composes the commands, each kept in its own module; so that `--help` stays
light, none of them loads the runtime before a command runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from hookagent.cli._exits import console, guarded
from hookagent.sessions._agent_spec import RunOptions

__all__ = ["RunOptions", "app", "main"]

app = typer.Typer(
    name="hookagent",
    help="An agent runtime whose loop is a skeleton of deterministic hooks.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _run_commands() -> None:
    from hookagent.cli._run_cmd import register

    register(app)


_run_commands()


def _hooks_app() -> typer.Typer:
    from hookagent.cli._hooks_cmd import hooks_app

    return hooks_app


app.add_typer(_hooks_app(), name="hooks")


def _audit_app() -> typer.Typer:
    from hookagent.cli._audit_cmd import audit_app

    return audit_app


app.add_typer(_audit_app(), name="audit")


def _mcp_app() -> typer.Typer:
    from hookagent.cli._mcp_cmd import mcp_app

    return mcp_app


app.add_typer(_mcp_app(), name="mcp")


def _temporal_app() -> typer.Typer:
    from hookagent.cli._temporal_cmd import temporal_app

    return temporal_app


app.add_typer(_temporal_app(), name="temporal")


def _setup_command() -> None:
    from hookagent.cli._setup_cmd import register

    register(app)


_setup_command()


def _sessions_commands() -> None:
    from hookagent.cli._sessions_cmd import register

    register(app)


_sessions_commands()


def _serve_commands() -> None:
    from hookagent.cli._serve_cmd import register

    register(app)


_serve_commands()


@app.command()
def demo(
    json_output: Annotated[
        bool, typer.Option("--json", help="No live view: each run's record as one JSON object.")
    ] = False,
) -> None:
    """Four short scripted runs showing hooks block, rewrite, keep going and stop.

    No API key and no network: the model is scripted and the tools are simulated.
    """
    from hookagent.cli._demo import run_demo

    raise typer.Exit(guarded(lambda: run_demo(console(), json_output=json_output)))


def main() -> None:
    """Console-script entry point."""
    app(prog_name="hookagent")

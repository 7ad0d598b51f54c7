"""`hookagent submit PROMPT --session NAME [run's options]`: a run written down as queued, with
the options `hookagent run` would save, for `hookagent worker` to claim and execute.

`submit` takes exactly `run`'s options (it is `run`'s command under another name, see
`register`): the agent is built as `run` would build it, so a bad option, plugin or settings
file is refused here (exit 2), not when a worker takes the run up.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

import typer

from hookagent._errors import ConfigError
from hookagent.cli._json_out import emit_json
from hookagent.cli._store_access import in_store
from hookagent.sessions._agent_spec import RunOptions
from hookagent.sessions._validate import check_run_options

__all__ = ["HELP", "register", "submit_run"]

HELP: Final = (
    "Queue PROMPT in a session of the store for `hookagent worker` to run. Takes the "
    "options of `hookagent run`; --session (or --store) is required."
)


def register(app: typer.Typer, run: Callable[..., Any]) -> None:
    """`submit` as `run`'s command under another name: the same options, always."""
    app.command("submit", help=HELP, no_args_is_help=True)(run)


def submit_run(options: RunOptions) -> int:
    """Write the run down as queued, its options saved; print its id and how to run it."""
    if not options.durable:
        raise ConfigError(
            "a submitted run waits in a store for `hookagent worker`: name its session with "
            "--session NAME (or its store with --store URL)",
            key="--session",
        )
    if options.clear:
        raise ConfigError(
            "clears a session as its run starts here; a queued run starts in a worker: "
            "`hookagent run --session NAME --clear`",
            key="--clear",
        )
    cwd = options.cwd or os.getcwd()
    options = replace(options, cwd=cwd)
    check_run_options(options)
    from hookagent.store._open import open_store

    store = open_store(options.store, project_dir=cwd)

    from hookagent.sessions._kept_runs import submit

    run_id, session = in_store(store, lambda opened: submit(opened, options))
    flag = f" --store {shlex.quote(options.store)}" if options.store is not None else ""
    worker = f"hookagent worker --once{flag}"
    if options.json:
        emit_json({"run_id": run_id, "session": session, "status": "queued", "worker": worker})
    else:
        typer.echo(f"queued run {run_id} · session {session}")
        typer.echo(f"run it: {worker} (or leave `hookagent worker` running)")
    return 0

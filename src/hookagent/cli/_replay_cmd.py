"""`hookagent replay ID`: a recorded run's hook folds through today's hooks and settings,
with the model and tools answered from the record; every decision that changed is printed.
The record is a run in the store, or a run in an audit trail file (then the hooks are the
`--settings` and `--plugin` given)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hookagent.cli._shared_options import (
    JsonOpt,
    StoreOpt,
    plugin_option,
    settings_option,
    temporal_option,
)
from hookagent.cli._store_access import existing, guard, in_store
from hookagent.sessions._plugins import apply_plugins

if TYPE_CHECKING:
    from temporalio.client import Client

    from hookagent._agent import Agent
    from hookagent.sessions._replay import ReplayReport
    from hookagent.store._base import Store

__all__ = ["replay_command"]


def replay_command(
    key: Annotated[
        str,
        typer.Argument(
            metavar="ID", help="A run id, a session (id or name), or an audit trail file."
        ),
    ],
    settings: Annotated[
        list[str] | None,
        settings_option("Replay under these Claude Code settings files instead of the run's own."),
    ] = None,
    plugin: Annotated[list[str] | None, plugin_option("Use these plugins instead.")] = None,
    store: StoreOpt = None,
    json_output: JsonOpt = False,
    run_id: Annotated[
        str | None,
        typer.Option(
            "--run", metavar="RUN", help="With an audit file: which run (default: the last)."
        ),
    ] = None,
    fail_on_change: Annotated[
        bool, typer.Option("--fail-on-change", help="Exit 1 if any decision changed.")
    ] = False,
    temporal: Annotated[
        str | None,
        temporal_option(
            "ID is a run on the Temporal server there (the hooks: --settings, --plugin)."
        ),
    ] = None,
) -> None:
    """Re-run a recorded run's hooks with today's hooks and settings (no model, no tool) and
    print every decision that changed: point, call, before → after, which hook."""
    from hookagent.durable._sessions import find_run
    from hookagent.sessions._kept_runs import replay_run
    from hookagent.sessions._replay import replay

    async def go(opened: Store) -> ReplayReport:
        run = await find_run(opened, key)
        return await replay_run(opened, run, settings=settings, plugins=plugin)

    def given() -> Agent:
        """The agent of the hooks given on the command line."""
        from hookagent._builder import AgentBuilder
        from hookagent.models._scripted import ScriptedModel

        builder = AgentBuilder().model(ScriptedModel([]))
        if settings:
            builder.with_settings(*settings, project_dir=os.getcwd())
        apply_plugins(builder, tuple(plugin or ()))
        return builder.build()

    def from_audit() -> ReplayReport:
        import asyncio

        from hookagent.sessions._replay_audit import recording_from_audit

        return asyncio.run(replay(recording_from_audit(key, run_id), given()))

    def from_temporal(address: str) -> ReplayReport:
        from hookagent.cli._temporal_server import on_server
        from hookagent.sessions._replay import Recording
        from hookagent.temporal._sessions import inspect

        async def go(client: Client) -> ReplayReport:
            entry, state, _ = await inspect(client, key)
            recorded = Recording.of(key, entry.prompt, state.messages, state.steps, state.decisions)
            return await replay(recorded, given())

        return on_server(address, go, key)

    def run() -> int:
        if temporal is not None:
            report = from_temporal(temporal)
        else:
            report = from_audit() if Path(key).is_file() else in_store(existing(store), go)
        if json_output:
            sys.stdout.write(json.dumps(report.to_dict(), indent=2) + "\n")
        else:
            for change in report.changes:
                typer.echo(change.line())
            typer.echo(
                f"{len(report.changes)} decision(s) changed "
                f"({report.decisions_before} recorded, {report.decisions_after} now)"
            )
        return 1 if fail_on_change and report.changes else 0

    if temporal is not None:  # a Temporal client's threads outlive a normal exit
        from hookagent.cli._temporal_server import exit_now

        exit_now(guard(run))
    raise typer.Exit(guard(run))

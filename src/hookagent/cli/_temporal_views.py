"""`hookagent temporal sessions | runs SESSION | show RUN`: a Temporal server's sessions, a
session's runs and one run, read through visibility and queries, as text or `--json`."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hookagent.cli._exits import guarded
from hookagent.cli._session_views import call_text, short
from hookagent.cli._shared_options import AddressOpt, JsonOpt

if TYPE_CHECKING:
    from temporalio.client import Client

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add `sessions`, `runs` and `show` to `hookagent temporal`."""
    app.command("sessions")(sessions)
    app.command("runs")(runs)
    app.command("show")(show)


def sessions(address: AddressOpt, json_output: JsonOpt = False) -> None:
    """The sessions of the server's latest runs, newest first."""

    async def rows(client: Client) -> list[dict[str, Any]]:
        from hookagent.temporal._sessions import sessions as listed

        return await listed(client)

    _list(address, rows, "{session}  {runs} run(s)  newest {head}", json_output)


def runs(
    address: AddressOpt,
    session: Annotated[str, typer.Argument(metavar="SESSION")],
    json_output: JsonOpt = False,
) -> None:
    """The runs of SESSION, newest first, with their workflows' status."""

    async def rows(client: Client) -> list[dict[str, Any]]:
        from hookagent.temporal._sessions import session_runs

        return [r.to_dict() for r in await session_runs(client, session)]

    _list(address, rows, "{run_id}  {status}  {prompt:.60}", json_output)


def _list(
    address: str,
    rows: Callable[[Client], Awaitable[list[dict[str, Any]]]],
    line: str,
    json_output: bool,
) -> None:
    """Print `rows`: as JSON, or each as `line` formats it."""

    async def go(client: Client) -> int:
        found = await rows(client)
        if json_output:
            typer.echo(json.dumps(found, indent=2))
        for row in [] if json_output else found:
            typer.echo(line.format(**row))
        return 0

    _exit(address, go)


def show(
    address: AddressOpt,
    run_id: Annotated[str, typer.Argument(metavar="RUN_ID")],
    json_output: JsonOpt = False,
) -> None:
    """Run RUN_ID: its status, calls, decisions and the questions it waits on."""

    async def go(client: Client) -> int:
        from hookagent.temporal._sessions import inspect

        entry, state, questions = await inspect(client, run_id)
        if json_output:
            shown = {**entry.to_dict(), "state": state.to_dict(), "questions": questions}
            typer.echo(json.dumps(shown, indent=2))
            return 0
        typer.echo(f"run {entry.run_id}  session {entry.session or '-'}  {state.status}")
        typer.echo(f"prompt: {short(entry.prompt)}")
        for step in state.steps:
            for execution in step.executions:
                outcome = "blocked" if execution.blocked else short(execution.result.content, 60)
                typer.echo(f"  call {call_text(execution.name, execution.args)} → {outcome}")
        for decision in state.decisions:
            typer.echo(f"  {decision}")
        for question in questions:
            typer.echo(f"waiting: {question['id']} {question['question']}")
        if state.stop_reason is not None:
            typer.echo(f"{state.stop_reason}: {short(state.output or state.stop_message or '')}")
        return 0

    _exit(address, go, run_id)


def _exit(
    address: str, main: Callable[[Client], Awaitable[int]], run_id: str | None = None
) -> None:
    """Run `main` with a client of `address`; a run or server that cannot be reached is a
    clear error."""
    from hookagent.cli._temporal_server import exit_now, on_server

    exit_now(guarded(lambda: on_server(address, main, run_id)))

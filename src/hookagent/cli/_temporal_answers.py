"""Answering a run on Temporal from the command line: `hookagent approve|deny RUN [CALL]
--temporal HOST:PORT`, and `hookagent temporal approve|deny RUN QUESTION`. Each answer is
the `answer` workflow update, with the JSON a store takes (`answer_json`: the same
fingerprint and scope rules); the store's options are refused."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hookagent._errors import ConfigError
from hookagent.cli._shared_options import temporal_option

if TYPE_CHECKING:
    from temporalio.client import Client

    from hookagent.durable._answers import Scope

__all__ = ["TemporalOpt", "answer_on_temporal"]

TemporalOpt = Annotated[
    str | None,
    temporal_option("The run is on the Temporal server there: answer it with a workflow update."),
]


def answer_on_temporal(
    address: str,
    run_id: str,
    which: str | None,
    approved: bool,
    *,
    scope: str = "once",
    reason: str | None = None,
    ttl: float | None = None,
    json_output: bool = False,
) -> int:
    """Answer the questions run `run_id` and its subagents wait on (only the one whose id
    or call id is `which`, if given: the run's own, else the first subagent's that asks
    one); refused if they wait on none that match."""
    from hookagent.cli._temporal_server import on_server
    from hookagent.durable._answers import answer_json
    from hookagent.temporal._client import answer, waiting
    from hookagent.temporal._questions import SCOPES

    if scope not in SCOPES:
        raise ConfigError(f"must be one of {', '.join(SCOPES)}", key="--scope", value=scope)
    reach: Scope = scope  # type: ignore[assignment]

    async def go(client: Client) -> list[dict[str, Any]]:
        found = await waiting(client, run_id)
        chosen = [q for q in found if which is None or which in (q["id"], q.get("call_id"))]
        if which is not None:  # question ids repeat across runs: one run's
            chosen = [q for q in chosen if q["run_id"] == chosen[0]["run_id"]]
        if not chosen:
            asked = ", ".join(f"{q['id']} (call {q.get('call_id')})" for q in found) or "none"
            named = f" {which}" if which else ""
            raise ConfigError(
                f"run {run_id} waits on no question{named} (waiting: {asked})",
                key=which or run_id,
            )
        given = answer_json(approved, reason=reason, by="cli", scope=reach, ttl=ttl)
        for question in chosen:
            await answer(client, question["run_id"], question["id"], given)
        return chosen

    answered = on_server(address, go, run_id)
    verb = "approved" if approved else "denied"
    if json_output:
        rows = [{"run_id": q["run_id"], "question": q["id"], verb: True} for q in answered]
        typer.echo(json.dumps(rows, indent=2))
    for question in [] if json_output else answered:
        typer.echo(
            f"{verb} {question['id']} ({question.get('tool_name')}) of run {question['run_id']}"
        )
    return 0

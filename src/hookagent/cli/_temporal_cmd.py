"""`hookagent temporal worker`: serve an agent's runs on a Temporal task queue; and
`hookagent run … --temporal HOST:PORT`: start a run there and show it live as `run` shows a
run in memory (each model reply whole), or with `--json` wait for its end.

The worker builds its agent from the same flags as `run` (model, plugins, settings files,
file tools, Bash); the run's side builds the same agent to finish its result. A `scripted:`
model answers by history, so a worker that takes a run over answers where it was.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from hookagent._errors import ConfigError
from hookagent.cli._exits import exit_code, guarded, print_json
from hookagent.cli._groups import command_group
from hookagent.cli._shared_options import (
    AddressOpt,
    AllowBashOpt,
    HookSettingsOpt,
    ModelOpt,
    PluginsOpt,
    RootOpt,
    ScopeOpt,
    SystemOpt,
)
from hookagent.cli._temporal_server import exit_now, on_server, reach, run_async
from hookagent.sessions._agent_spec import RunOptions, build_agent, scripted_path

if TYPE_CHECKING:
    from temporalio.client import Client

    from hookagent._agent import Agent

T = TypeVar("T")

__all__ = ["DEFAULT_QUEUE", "exit_now", "run_on_temporal", "temporal_app"]

DEFAULT_QUEUE = "hookagent"


temporal_app = command_group("Run agents as durable Temporal workflows.")

QueueOpt = Annotated[
    str, typer.Option("--task-queue", metavar="Q", help="The task queue to serve.")
]


@temporal_app.command()
def worker(
    address: AddressOpt,
    model: ModelOpt,
    task_queue: QueueOpt = DEFAULT_QUEUE,
    plugin: PluginsOpt = None,
    settings: HookSettingsOpt = None,
    root: RootOpt = None,
    allow_bash: AllowBashOpt = False,
    system: SystemOpt = None,
    heartbeat: Annotated[
        float,
        typer.Option(
            help="Seconds without a heartbeat before a model or tool call's worker is lost."
        ),
    ] = 10.0,
    history: Annotated[
        int,
        typer.Option(
            metavar="EVENTS", min=20, help="History events after which a run continues as new."
        ),
    ] = 5000,
    payload_limit: Annotated[
        int,
        typer.Option(
            metavar="BYTES",
            min=1024,
            help="Bytes a model request or a continue-as-new may carry (at most the "
            "server's blob size limit, 2 MiB by default).",
        ),
    ] = 2_000_000,
) -> None:
    """Serve the agent these flags build (as `run` builds it) until Ctrl-C."""
    options = RunOptions(
        prompt="",
        model=model,
        plugins=tuple(plugin or ()),
        settings=tuple(settings or ()),
        root=root,
        allow_bash=allow_bash,
        system=system,
    )
    limits = {"heartbeat": heartbeat, "history": history, "payload_limit": payload_limit}
    exit_now(guarded(lambda: _serve(options, address, task_queue, limits)))


def _serve(options: RunOptions, address: str, task_queue: str, limits: dict[str, Any]) -> int:
    from hookagent.temporal import agent_worker

    agent = _agent(options)

    async def go() -> None:
        client = await reach(address)
        async with agent_worker(client, agent, task_queue, **limits):
            typer.echo(f"worker on {address}, task queue {task_queue}", err=True)
            await _forever()

    try:
        run_async(go())
    except KeyboardInterrupt:
        typer.echo("worker stopped", err=True)
    return 0


@temporal_app.command()
def questions(
    address: AddressOpt, run_id: Annotated[str, typer.Argument(metavar="RUN_ID")]
) -> None:
    """The questions run RUN_ID waits on, one JSON object a line."""

    async def go(client: Client) -> int:
        from hookagent.temporal._client import waiting

        for question in await waiting(client, run_id):
            typer.echo(json.dumps(question))
        return 0

    exit_now(guarded(lambda: on_server(address, go, run_id)))


RunIdArg = Annotated[str, typer.Argument(metavar="RUN_ID")]
QuestionArg = Annotated[str, typer.Argument(metavar="QUESTION_ID")]
ReasonOpt = Annotated[str | None, typer.Option("--reason", metavar="TEXT")]


@temporal_app.command()
def approve(
    address: AddressOpt,
    run_id: RunIdArg,
    question_id: QuestionArg,
    reason: ReasonOpt = None,
    scope: ScopeOpt = "once",
) -> None:
    """Approve question QUESTION_ID of run RUN_ID (a workflow update)."""
    from hookagent.cli._temporal_answers import answer_on_temporal

    exit_now(
        guarded(
            lambda: answer_on_temporal(
                address, run_id, question_id, True, scope=scope, reason=reason
            )
        )
    )


@temporal_app.command()
def deny(
    address: AddressOpt, run_id: RunIdArg, question_id: QuestionArg, reason: ReasonOpt = None
) -> None:
    """Deny question QUESTION_ID of run RUN_ID (a workflow update)."""
    from hookagent.cli._temporal_answers import answer_on_temporal

    exit_now(
        guarded(lambda: answer_on_temporal(address, run_id, question_id, False, reason=reason))
    )


def run_on_temporal(options: RunOptions, address: str, task_queue: str) -> int:
    """Start the run `options` describe on the workers of `task_queue` (in its session, if
    it names one), wait, report. The run's limits travel with it; the agent is built
    without them, as the worker builds it."""
    if options.store is not None:
        raise ConfigError("a run on Temporal is kept by Temporal, not in a store", key="--store")
    if options.prices:
        raise ConfigError(
            "prices are not carried to a Temporal worker; --max-cost uses the built-in table",
            key="--price",
        )
    limits = {
        key: value
        for key, value in (
            ("max_steps", options.max_steps),
            ("max_tokens", options.max_tokens),
            ("max_seconds", options.max_seconds),
            ("max_cost", options.max_cost),
        )
        if value is not None
    }
    agent = _agent(
        replace(options, max_steps=None, max_tokens=None, max_seconds=None, max_cost=None)
    )

    async def go(client: Client) -> int:
        from hookagent.temporal import TemporalRuns

        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start(options.prompt, session=options.session, limits=limits)
        typer.echo(f"run {run_id} on {address}, task queue {task_queue}", err=True)
        if options.json:
            result = await runs.result(run_id)
            print_json(result)
        else:
            from hookagent.cli._exits import console
            from hookagent.cli._render import LiveRenderer, shown

            result = await shown(runs.watch(run_id), LiveRenderer(console()))
        return exit_code(result)

    return on_server(address, go)


def _agent(options: RunOptions) -> Agent:
    agent, _ = build_agent(options)
    path = scripted_path(options)
    if path is not None:
        from hookagent.models._scripted import ScriptedModel

        agent.model = ScriptedModel.from_file(path, by_history=True)
    return agent


async def _forever() -> None:
    import asyncio

    await asyncio.Event().wait()


def _views() -> None:
    from hookagent.cli._temporal_views import register

    register(temporal_app)


_views()

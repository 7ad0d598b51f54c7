"""`hookagent run PROMPT`: build the agent its options describe, run it with a live view (or
`--json`), and end with the run's exit code (see `exits`). `hookagent submit` is the same
command under another name (see `submit_cmd`), so the two can never take different options.

A run with `--session` or `--store` is kept in the store (`session_runs`); one without asks
its questions at the terminal, or, with no terminal to ask at, denies them with the remedy.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Final

import typer

from hookagent.cli._advice import ANSWER_LATER
from hookagent.cli._claude_options import ClaudePluginOption, ClaudeProjectOption
from hookagent.cli._exits import console, exit_code, guarded, interrupted, print_json
from hookagent.cli._notify_option import NotifyInboxOpt, NotifyOpt, notified, with_notify
from hookagent.cli._shared_options import (
    AllowBashOpt,
    HookSettingsOpt,
    ModelOpt,
    PluginsOpt,
    RootOpt,
    SystemOpt,
    temporal_option,
)
from hookagent.sessions._agent_spec import RunOptions, connected_agent
from hookagent.sessions._validate import check_run_options

if TYPE_CHECKING:
    from hookagent._agent import Agent
    from hookagent.kernel._approval import Answer, Approver, Question
    from hookagent.kernel._result import RunResult
    from hookagent.models._base import Model

__all__ = ["NO_TERMINAL", "execute", "register", "run"]


def register(app: typer.Typer) -> None:
    """`run`, and `submit` with exactly its options."""
    from hookagent.cli._submit_cmd import register as register_submit

    app.command()(run)
    register_submit(app, run)


def run(
    ctx: typer.Context,
    prompt: Annotated[
        list[str],
        typer.Argument(
            metavar="PROMPT",
            help="The user prompt that starts the run; more words are joined to it, so "
            "`/review src/app.py` needs no quotes.",
        ),
    ],
    model: ModelOpt,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the run result as one JSON object.")
    ] = False,
    system: SystemOpt = None,
    max_steps: Annotated[int | None, typer.Option(help="Stop after this many steps.")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Stop at this many tokens.")] = None,
    max_seconds: Annotated[float | None, typer.Option(help="Stop after this long.")] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(metavar="USD", help="Stop once model calls have cost this many US dollars."),
    ] = None,
    price: Annotated[
        list[str] | None,
        typer.Option(
            metavar="MODEL=IN/OUT",
            help="A model's price for --max-cost: US dollars per million input/output "
            "tokens, e.g. my-model=0.5/1.5. Repeatable.",
        ),
    ] = None,
    model_alias: Annotated[
        list[str] | None,
        typer.Option(
            metavar="ALIAS=PROVIDER:MODEL",
            help="Run agent files whose model: is ALIAS (sonnet, opus, haiku, a full id) on "
            "this model, e.g. sonnet=openai:gpt-4.1. Repeatable; unmapped ones run on --model.",
        ),
    ] = None,
    max_result_chars: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            help="A tool result longer than N characters is saved to a file in the run's "
            "folder; the model reads a preview and the path (default 50000; 0: no limit).",
        ),
    ] = None,
    settings: HookSettingsOpt = None,
    mcp_config: Annotated[
        list[str] | None,
        typer.Option(
            metavar="FILE",
            help="A Claude Code .mcp.json file whose MCP servers the run connects; their "
            "tools are named mcp__SERVER__TOOL. Repeatable.",
        ),
    ] = None,
    discover_settings: Annotated[
        bool,
        typer.Option(
            "--discover-settings",
            help="Also read the standard Claude Code settings (managed, ~/.claude, .claude/) "
            "and the project's .mcp.json.",
        ),
    ] = False,
    allow_unsupported_hooks: Annotated[
        bool,
        typer.Option(
            "--allow-unsupported-hooks",
            help="Run even though the settings hold hooks hookagent would not run (a "
            "misspelled handler type, a type on an event Claude Code does not run it on, an "
            "unknown event, one it does not fire); they are reported and recorded in the "
            "run. Without it, such settings are refused (exit 2).",
        ),
    ] = False,
    base_url: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="The server of an OpenAI-compatible or self-hosted model "
            "(vLLM, Ollama, llama.cpp, LM Studio, OpenRouter).",
        ),
    ] = None,
    root: RootOpt = None,
    allow_bash: AllowBashOpt = False,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="File tools without Write and Edit.")
    ] = False,
    approvals: Annotated[
        bool,
        typer.Option(
            "--approvals",
            help="Decide each tool call by the permissions.allow/deny/ask rules of "
            ".claude/settings.json and .claude/settings.local.json; ask before destructive "
            "calls no rule allows (at the terminal, or through the store with --session).",
        ),
    ] = False,
    plugin: PluginsOpt = None,
    session: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Keep the run in this session of the store (continued if it exists): a "
            "question nobody answers pauses it (exit 3) until it is approved or denied.",
        ),
    ] = None,
    clear: Annotated[
        bool,
        typer.Option(
            "--clear",
            help="With --session: start the session's conversation afresh, as Claude Code's "
            "/clear (SessionStart hooks get source clear).",
        ),
    ] = False,
    store: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="The store of sessions: a path, sqlite:///path or postgresql://… "
            "(default: .hookagent/sessions.db). Implies a session.",
        ),
    ] = None,
    claude_project: ClaudeProjectOption = None,
    claude_plugin: ClaudePluginOption = None,
    init: Annotated[
        bool,
        typer.Option(
            "--init",
            help="Fire the Claude Code Setup hooks (trigger init) before SessionStart, as "
            "`claude --init` does; `hookagent setup` fires them alone.",
        ),
    ] = False,
    notify: NotifyOpt = None,
    notify_inbox: NotifyInboxOpt = None,
    temporal: Annotated[
        str | None,
        temporal_option(
            "Run on the Temporal server there, on the workers of --task-queue "
            "(`hookagent temporal worker`), and wait for the end."
        ),
    ] = None,
    task_queue: Annotated[
        str, typer.Option(metavar="Q", help="With --temporal: the task queue.")
    ] = "hookagent",
) -> None:
    """Run PROMPT and show each step, tool call and hook decision as it happens."""
    options = RunOptions(
        prompt=" ".join(prompt),
        model=model,
        json=json_output,
        system=system,
        max_steps=max_steps,
        max_tokens=max_tokens,
        max_seconds=max_seconds,
        max_cost=max_cost,
        prices=tuple(price or ()),
        model_aliases=tuple(model_alias or ()),
        max_result_chars=max_result_chars,
        plugins=tuple(plugin or ()),
        settings=tuple(settings or ()),
        mcp_configs=tuple(mcp_config or ()),
        discover_settings=discover_settings,
        allow_unsupported_hooks=allow_unsupported_hooks,
        root=root,
        base_url=base_url,
        allow_bash=allow_bash,
        read_only=read_only,
        approvals=approvals,
        session=session,
        clear=clear,
        store=store,
        claude_project=claude_project,
        claude_plugins=tuple(claude_plugin or ()),
        init=init,
    )
    command = ctx.info_name
    if temporal is not None:
        from hookagent.cli._temporal_cmd import exit_now

        noted = notify or notify_inbox
        exit_now(guarded(lambda: _on_temporal(options, command, temporal, task_queue, noted)))
    raise typer.Exit(
        guarded(
            lambda: _run_or_submit(with_notify(options, notify, notify_inbox, command), command)
        )
    )


def _on_temporal(
    options: RunOptions, command: str | None, address: str, queue: str, notify: object
) -> int:
    from hookagent._errors import ConfigError
    from hookagent.cli._temporal_cmd import run_on_temporal

    if command == "submit":
        raise ConfigError(
            "submit queues a run in a store; run it with --temporal", key="--temporal"
        )
    if notify:
        raise ConfigError("a run on Temporal tells no webhook of its questions", key="--notify")
    if options.clear:
        raise ConfigError("a run on Temporal keeps no session to clear", key="--clear")
    return run_on_temporal(options, address, queue)


def _run_or_submit(options: RunOptions, command: str | None) -> int:
    """`run` executes; `submit`, the same command under another name, queues."""
    if command == "submit":
        from hookagent.cli._submit_cmd import submit_run

        if options.claude_project is not None or options.claude_plugins:
            from hookagent.sessions._claude_project import prepare

            options = prepare(options)  # queued as run would run it
        return submit_run(options)
    return execute(options)


def execute(options: RunOptions) -> int:
    """Build the agent `options` describe, run it, report; the exit code."""
    if options.claude_project is not None or options.claude_plugins:
        from hookagent.sessions._claude_project import prepare

        options = prepare(options)  # the project's defaults; a slash command expanded
    check_run_options(options)  # before a store is opened
    if options.durable:
        from hookagent.cli._session_runs import run_in_session

        return run_in_session(replace(options, cwd=options.cwd or os.getcwd()))
    from hookagent.cli._render import Interrupted, LiveRenderer, stream_run

    renderer = None if options.json else LiveRenderer(console())

    async def go() -> tuple[RunResult, Model]:
        async with connected_agent(options) as (agent, model):  # MCP servers connected first
            approver = _terminal_approver(agent)
            result = await stream_run(agent, options.prompt, renderer, approver=approver)
        await notified(options.notify)
        return result, model

    import asyncio

    try:
        result, model = asyncio.run(go())
    except Interrupted as stop:
        return interrupted(stop.result, json_output=options.json)
    if options.json:
        from hookagent.sessions._settings_files import run_settings_files

        print_json(result, settings_files=run_settings_files(options))
    _warn_unused(model)
    return exit_code(result)


def _terminal_approver(agent: Agent) -> Approver | None:
    """Questions are asked at the terminal when there is one to ask at (stdin and stdout
    are terminals; a run kept in a store answers through the store instead). `Approvals`
    installed in the agent see the answers, to remember them or save rules."""
    if not all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout)):
        return _no_terminal
    from hookagent.capabilities.approvals import remembering
    from hookagent.cli._prompt import TerminalApprover

    return remembering(agent, TerminalApprover())


NO_TERMINAL: Final = f"approval required but nobody can answer here (no terminal); {ANSWER_LATER}"


def _no_terminal(question: Question) -> Answer:
    """A question in a run with no terminal and no store: denied, with the CLI's remedy."""
    from hookagent.kernel._approval import Answer

    return Answer(approved=False, by="nobody", reason=NO_TERMINAL)


def _warn_unused(model: Model) -> None:
    from hookagent.models._scripted import ScriptedModel

    if isinstance(model, ScriptedModel) and model.remaining > 0:
        turns = "turn was" if model.remaining == 1 else "turns were"
        typer.echo(f"warning: {model.remaining} scripted {turns} not used ({model.name})", err=True)

"""The `hookagent` command: `run` a prompt against a model, or watch the `demo`.

Exit codes: 0 when a run completed or was stopped (a stop is a decision, not a failure),
1 when it failed, 2 for misuse (a bad model name, script file or plugin), reported as
`error: <message>` with no traceback.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Final, final

import typer
from rich.console import Console

from hookagent.builder import AgentBuilder
from hookagent.cli.plugins import apply_plugins
from hookagent.errors import ConfigError
from hookagent.kernel.result import RunResult
from hookagent.models.base import Model
from hookagent.models.resolve import resolve_model
from hookagent.models.scripted import ScriptedModel

__all__ = ["app", "main"]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_CONFIG: Final = 2

app = typer.Typer(
    name="hookagent",
    help="An agent runtime whose loop is a skeleton of deterministic hooks.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    """What `hookagent run` was asked to do, apart from how typer parsed it."""

    prompt: str
    model: str
    json: bool = False
    system: str | None = None
    max_steps: int | None = None
    max_tokens: int | None = None
    max_seconds: float | None = None
    max_cost: float | None = None
    plugins: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()
    discover_settings: bool = False
    root: str | None = None
    allow_bash: bool = False
    read_only: bool = False
    base_url: str | None = None


@app.command()
def run(
    prompt: Annotated[str, typer.Argument(help="The user prompt that starts the run.")],
    model: Annotated[
        str,
        typer.Option(
            "--model",
            "-m",
            metavar="PROVIDER:MODEL",
            help="The model, e.g. scripted:turns.json (a JSON list of turns).",
        ),
    ],
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the run result as one JSON object.")
    ] = False,
    system: Annotated[
        str | None, typer.Option("--system", metavar="TEXT", help="System prompt.")
    ] = None,
    max_steps: Annotated[int | None, typer.Option(help="Stop after this many steps.")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Stop at this many tokens.")] = None,
    max_seconds: Annotated[float | None, typer.Option(help="Stop after this long.")] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(metavar="USD", help="Stop once model calls have cost this many US dollars."),
    ] = None,
    settings: Annotated[
        list[str] | None,
        typer.Option(
            "--settings",
            "-s",
            metavar="FILE",
            help="A Claude Code settings file whose command hooks run unchanged. Repeatable.",
        ),
    ] = None,
    discover_settings: Annotated[
        bool,
        typer.Option(
            "--discover-settings",
            help="Also read the standard Claude Code settings (managed, ~/.claude, .claude/).",
        ),
    ] = False,
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url",
            metavar="URL",
            help="The server of an OpenAI-compatible or self-hosted model "
            "(vLLM, Ollama, llama.cpp, LM Studio, OpenRouter).",
        ),
    ] = None,
    root: Annotated[
        str | None,
        typer.Option(
            "--root",
            metavar="DIR",
            help="Give the agent the file tools (Read, Write, Edit, Glob, Grep, LS), "
            "confined to DIR, and TodoWrite.",
        ),
    ] = None,
    allow_bash: Annotated[
        bool,
        typer.Option("--allow-bash", help="Also give it Bash, run in --root (default: .)."),
    ] = False,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="File tools without Write and Edit.")
    ] = False,
    plugin: Annotated[
        list[str] | None,
        typer.Option(
            "--plugin",
            "-p",
            metavar="FILE_OR_MODULE",
            help="A Python file or module whose configure(builder) adds tools and hooks. "
            "Repeatable.",
        ),
    ] = None,
) -> None:
    """Run PROMPT and show each step, tool call and hook decision as it happens."""
    options = RunOptions(
        prompt=prompt,
        model=model,
        json=json_output,
        system=system,
        max_steps=max_steps,
        max_tokens=max_tokens,
        max_seconds=max_seconds,
        max_cost=max_cost,
        plugins=tuple(plugin or ()),
        settings=tuple(settings or ()),
        discover_settings=discover_settings,
        root=root,
        base_url=base_url,
        allow_bash=allow_bash,
        read_only=read_only,
    )
    raise typer.Exit(_guarded(lambda: execute(options)))


def _hooks_app() -> typer.Typer:
    from hookagent.cli.hooks_cmd import hooks_app

    return hooks_app


app.add_typer(_hooks_app(), name="hooks")


@app.command()
def demo() -> None:
    """Four short scripted runs showing hooks block, rewrite, keep going and stop.

    No API key and no network: the model is scripted and the tools are simulated.
    """
    from hookagent.cli.demo import run_demo

    raise typer.Exit(_guarded(lambda: run_demo(_console())))


def execute(options: RunOptions) -> int:
    """Build the agent `options` describe, run it, report; the exit code."""
    model = resolve_model(options.model, base_url=options.base_url)
    builder = AgentBuilder().model(model)
    if options.system is not None:
        builder.system_prompt(options.system)
    _install_tools(builder, options)
    if options.settings or options.discover_settings:
        builder.with_settings(*options.settings, discover=options.discover_settings)
    apply_plugins(builder, options.plugins)
    # After the plugins, so a flag given on the command line has the last word.
    limits: dict[str, Any] = {
        key: value
        for key, value in (
            ("max_steps", options.max_steps),
            ("max_tokens", options.max_tokens),
            ("max_seconds", options.max_seconds),
            ("max_cost", options.max_cost),
        )
        if value is not None
    }
    if limits:
        builder.limits(**limits)
    agent = builder.build()
    if options.json:
        result = agent.run_sync(options.prompt)
        sys.stdout.write(json.dumps(result.to_dict(), indent=2, default=str) + "\n")
    else:
        from hookagent.cli.render import LiveRenderer, stream_run

        result = asyncio.run(stream_run(agent, options.prompt, LiveRenderer(_console())))
    _warn_unused(model)
    return exit_code(result)


def _install_tools(builder: AgentBuilder, options: RunOptions) -> None:
    """The built-in capabilities the flags ask for; each is loaded only when asked for."""
    if options.root is not None:
        from hookagent.capabilities.files import FileTools
        from hookagent.capabilities.planning import TaskPlanning

        builder.with_(FileTools(options.root, read_only=options.read_only))
        builder.with_(TaskPlanning())
    if options.allow_bash:
        from hookagent.capabilities.bash import Bash

        builder.with_(Bash(options.root or "."))


def exit_code(result: RunResult) -> int:
    return EXIT_OK if result.status in ("completed", "stopped") else EXIT_FAILED


def main() -> None:
    """Console-script entry point."""
    app(prog_name="hookagent")


def _guarded(action: Callable[[], int]) -> int:
    try:
        code = action()
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        return EXIT_CONFIG
    return code


def _warn_unused(model: Model) -> None:
    if isinstance(model, ScriptedModel) and model.remaining > 0:
        turns = "turn was" if model.remaining == 1 else "turns were"
        typer.echo(f"warning: {model.remaining} scripted {turns} not used ({model.name})", err=True)


def _console() -> Console:
    # soft_wrap: long lines are left to the terminal, so piped output stays greppable.
    return Console(soft_wrap=True, highlight=False)

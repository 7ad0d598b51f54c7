"""`hookagent setup`: the Claude Code Setup hooks alone, as `claude --init-only` and
`claude --maintenance` fire them, then exit.

The settings are those `run` would read with the same flags (`--settings`,
`--discover-settings`, `--claude-project`, `--claude-plugin`); the Setup handlers whose
matcher fits the trigger (`init`, or `maintenance`) run on Claude Code's Setup payload, with
`CLAUDE_ENV_FILE` set as `hooks test` sets it (the caller's, else a temporary file), and
the outcome is reported as `hooks test` reports it. `run --init` fires them in a run,
before SessionStart.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hookagent.cli._claude_options import ClaudePluginOption, ClaudeProjectOption
from hookagent.cli._shared_options import JsonOpt, settings_option

if TYPE_CHECKING:
    from hookagent.claude._model import LoadedSettings

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    app.command("setup")(setup)


def setup(
    maintenance: Annotated[
        bool,
        typer.Option(
            "--maintenance", help="Trigger maintenance (as `claude --maintenance`), not init."
        ),
    ] = False,
    settings: Annotated[
        list[Path] | None,
        settings_option("A settings file (repeatable)."),
    ] = None,
    discover_settings: Annotated[
        bool,
        typer.Option(
            "--discover-settings",
            help="Also read the standard Claude Code settings (managed, ~/.claude, .claude/).",
        ),
    ] = False,
    allow_unsupported_hooks: Annotated[
        bool,
        typer.Option(
            "--allow-unsupported-hooks",
            help="Go on although the settings hold hooks hookagent does not run.",
        ),
    ] = False,
    claude_project: ClaudeProjectOption = None,
    claude_plugin: ClaudePluginOption = None,
    as_json: JsonOpt = False,
) -> None:
    """Fire the Claude Code Setup hooks (trigger init, or maintenance) and exit."""
    from hookagent.cli._hooks_cmd import _guard

    def go() -> int:
        import asyncio

        from hookagent.cli._hooks_cmd import _test

        trigger = "maintenance" if maintenance else "init"
        loaded, project_dir = _settings(
            settings or [], discover_settings, claude_project, claude_plugin or []
        )
        payload: dict[str, Any] = {
            "session_id": uuid.uuid4().hex,
            "transcript_path": "",
            "cwd": project_dir,
            "hook_event_name": "Setup",
            "trigger": trigger,
        }
        specs, read = _setup_specs(loaded, payload, allow_unsupported_hooks)
        return asyncio.run(
            _test("Setup", payload, specs, project_dir, as_json, settings_files=read)
        )

    raise typer.Exit(_guard(go))


def _settings(
    files: list[Path], standard: bool, claude_project: str | None, plugins: list[str]
) -> tuple[LoadedSettings, str]:
    """The settings `run` reads with these flags, and the project folder."""
    if claude_project is not None or plugins:
        from hookagent.sessions._agent_spec import RunOptions
        from hookagent.sessions._claude_project import prepare, project_of

        options = prepare(
            RunOptions(
                prompt="",
                model="",
                settings=tuple(str(f) for f in files),
                claude_project=claude_project,
                claude_plugins=tuple(plugins),
            )
        )
        project = project_of(options)
        for line in project.warnings:
            typer.echo(f"warning: {line}", err=True)
        os.environ.update(project.env)  # the project's env reaches its hooks, as in a run
        return project.settings, project.root
    from hookagent.cli._hooks_cmd import _load

    return _load(files, Path("."), standard), str(Path(".").resolve())


def _setup_specs(
    loaded: LoadedSettings, payload: dict[str, Any], allow: bool
) -> tuple[list[Any], list[str]]:
    """The Setup handlers the trigger selects, refused as `run` refuses settings."""
    from hookagent.claude._checks import check_settings
    from hookagent.cli._hooks_cmd import _fits
    from hookagent.sessions._settings_files import settings_files

    report = check_settings(loaded)
    for line in report.warnings:
        typer.echo(f"warning: {line}", err=True)
    if not allow:
        report.refuse()
    fitting = [s for s in loaded.handlers if s.event == "Setup" and _fits(s, payload)]
    for spec in fitting:
        if spec.type != "command":
            typer.echo(f"warning: {spec.label}: a {spec.type} handler; not run by setup", err=True)
    return [s for s in fitting if s.type == "command"], settings_files(loaded)

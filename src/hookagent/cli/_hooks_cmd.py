"""`hookagent hooks check` and `hookagent hooks test`: Claude Code hooks without a model.

`check` validates settings files and lists which handler fires at which hookagent point for
which matcher, and every warning `run` prints; hooks hookagent would not run are errors, as
`run` refuses them, unless `--allow-unsupported-hooks`. `test` runs the handlers matching one
event payload and prints the merged outcome, so a hook script can be tried in a second;
settings holding hooks it would not run are refused.

Exit codes, one rule for both so scripts can gate on them: 0 when the answer is yes (no
errors; the hooks let the event through), 1 when it is no (`check` found errors, or warnings
under `--strict`; `test`'s combined decision is deny or block), 2 when the question could
not be asked (an unreadable or invalid file, an unknown event, refused settings).
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hookagent._errors import ConfigError
from hookagent.cli._claude_options import ClaudePluginOption, ClaudeProjectOption
from hookagent.cli._groups import command_group
from hookagent.cli._shared_options import JsonOpt, settings_option
from hookagent.sessions._settings_files import read_settings, settings_files, settings_line
from hookagent.sessions._validate import existing_dir

if TYPE_CHECKING:
    from hookagent.claude._model import HandlerSpec, LoadedSettings, ProcessOutcome

__all__ = ["hooks_app"]

hooks_app = command_group("Claude Code command hooks: validate settings, try a payload.")

SettingsOpt = Annotated[
    list[Path] | None,
    settings_option("A settings file (repeatable); read after the standard ones."),
]
DiscoverOpt = Annotated[
    bool,
    typer.Option(
        "--discover-settings",
        help="Also read the standard Claude Code settings (managed, ~/.claude, .claude/), "
        "as `run --discover-settings` does. Without it only --settings files are read.",
    ),
]
ProjectOpt = Annotated[
    Path, typer.Option("--project", help="The project whose .claude/ settings are read.")
]
NoDiscoverOpt = Annotated[
    bool,
    typer.Option(
        "--no-discover",
        help="Read only --settings files, not the standard locations (the default).",
    ),
]
AllowOpt = Annotated[
    bool,
    typer.Option(
        "--allow-unsupported-hooks",
        help="Report hooks hookagent would not run (misspelled or misplaced handler types, "
        "unknown events, events it does not fire) as warnings, not errors, as "
        "`run --allow-unsupported-hooks` runs without them.",
    ),
]

_SUBJECT_FIELD = {
    "PreToolUse": "tool_name",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "PermissionRequest": "tool_name",
    "PermissionDenied": "tool_name",
    "SessionStart": "source",
    "Setup": "trigger",
    "SessionEnd": "reason",
    "SubagentStart": "agent_type",
    "SubagentStop": "agent_type",
    "PreCompact": "trigger",
    "PostCompact": "trigger",
    "Notification": "notification_type",
    "StopFailure": "error",
    "Elicitation": "mcp_server_name",
    "ElicitationResult": "mcp_server_name",
}


@hooks_app.command("check")
def check(
    settings: SettingsOpt = None,
    project: ProjectOpt = Path("."),
    no_discover: NoDiscoverOpt = False,
    discover_settings: DiscoverOpt = False,
    allow_unsupported_hooks: AllowOpt = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Count warnings as errors (exit 1).")
    ] = False,
    as_json: JsonOpt = False,
    wide: Annotated[
        bool,
        typer.Option("--wide", help="One line per handler, however long (default: wrapped)."),
    ] = False,
    claude_project: ClaudeProjectOption = None,
    claude_plugin: ClaudePluginOption = None,
) -> None:
    """Validate settings files and list which handler fires where (exit 1 on errors)."""

    def go() -> int:
        if claude_project is not None or claude_plugin:
            from hookagent.cli._claude_project_check import check_project
            from hookagent.sessions._agent_spec import RunOptions

            options = RunOptions(
                prompt="",
                model="",
                settings=tuple(str(s) for s in settings or ()),
                claude_project=claude_project,
                claude_plugins=tuple(claude_plugin or ()),
            )
            allow = allow_unsupported_hooks
            return check_project(options, allow=allow, strict=strict, as_json=as_json, wide=wide)
        existing_dir("--project", project)
        out = _Out(json=as_json, wide=wide)
        files = settings or []
        standard = _standard(discover_settings, no_discover)
        return _check(files, project, standard, allow_unsupported_hooks, strict, out)

    raise typer.Exit(_guard(go))


@hooks_app.command("test")
def test(
    event: Annotated[str, typer.Argument(help="The Claude Code event, e.g. PreToolUse.")],
    input_file: Annotated[Path, typer.Option("--input", "-i", help="The event payload, JSON.")],
    settings: SettingsOpt = None,
    command: Annotated[
        str | None,
        typer.Option("--command", "-c", help="Test this command instead of settings files."),
    ] = None,
    cwd: Annotated[Path | None, typer.Option(help="Working directory of the hooks.")] = None,
    as_json: JsonOpt = False,
    project: ProjectOpt = Path("."),
    no_discover: NoDiscoverOpt = False,
    discover_settings: DiscoverOpt = False,
    allow_unsupported_hooks: AllowOpt = False,
) -> None:
    """Run the hooks matching one payload, with no model, and print the merged outcome."""

    def go() -> int:
        _known_event(event)
        existing_dir("--project", project)
        existing_dir("--cwd", cwd)
        payload = _read_payload(input_file, event, cwd)
        files = settings or []
        standard = _standard(discover_settings, no_discover)
        specs, read = _specs(
            event, payload, files, command, project, standard, allow_unsupported_hooks
        )
        where = str(project.resolve())
        import asyncio

        return asyncio.run(_test(event, payload, specs, where, as_json, settings_files=read))

    raise typer.Exit(_guard(go))


@dataclass(frozen=True, slots=True)
class _Out:
    json: bool
    wide: bool


def _known_event(event: str) -> None:
    from hookagent.claude._model import CLAUDE_EVENTS

    if event in CLAUDE_EVENTS:
        return
    by_case = {e.lower(): e for e in CLAUDE_EVENTS}
    close = [by_case[event.lower()]] if event.lower() in by_case else []
    close = close or difflib.get_close_matches(event, sorted(CLAUDE_EVENTS), n=1)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    raise ConfigError(f'unknown event "{event}"{hint}', key="EVENT", value=event)


def _guard(action: Any) -> int:
    try:
        return int(action())
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        return 2


def _standard(discover_settings: bool, no_discover: bool) -> bool:
    """Whether the standard locations are read: as `run` reads them, only when asked."""
    if discover_settings and no_discover:
        raise ConfigError(
            "--discover-settings and --no-discover contradict each other; give one",
            key="--no-discover",
        )
    return discover_settings


def _load(files: list[Path], project: Path, standard: bool) -> LoadedSettings:
    """The settings `run` would read with the same flags; which files, said on stderr."""
    loaded = read_settings(project, files, standard=standard)
    typer.echo(settings_line(loaded, project, standard=standard), err=True)
    return loaded


def _check(
    files: list[Path], project: Path, standard: bool, allow: bool, strict: bool, out: _Out
) -> int:
    from hookagent.cli._hooks_check import check_report, print_check

    report = check_report(_load(files, project, standard), allow=allow, strict=strict)
    print_check(report, as_json=out.json, wide=out.wide)
    return 0 if report["ok"] else 1


def _specs(
    event: str,
    payload: dict[str, Any],
    files: list[Path],
    command: str | None,
    project: Path,
    standard: bool,
    allow: bool,
) -> tuple[list[HandlerSpec], list[str]]:
    """The handlers to run, and the settings files read for them."""
    from hookagent.claude._checks import check_settings
    from hookagent.claude._model import HandlerSpec, SettingsSource

    if command is not None:
        source = SettingsSource(path="--command", kind="explicit")
        typer.echo("settings: none read (--command given)", err=True)
        spec = HandlerSpec(
            event=event,
            matcher=None,
            type="command",
            command=command,
            source=source,
            where="command",
        )
        return [spec], []
    loaded = _load(files, project, standard)
    report = check_settings(loaded)
    if not allow:
        report.refuse()
    for skipped in report.skipped:
        typer.echo(f"warning: {skipped}; not run", err=True)
    fitting = [s for s in loaded.handlers if s.event == event and _fits(s, payload)]
    for spec in fitting:
        if spec.type in ("prompt", "agent", "mcp_tool"):  # it asks no model, calls no server
            message = f"warning: {spec.label}: a {spec.type} handler; not run by hooks test"
            typer.echo(message, err=True)
    return [s for s in fitting if s.type in ("command", "http")], settings_files(loaded)


async def _test(
    event: str,
    payload: dict[str, Any],
    specs: list[HandlerSpec],
    project_dir: str,
    as_json: bool,
    *,
    settings_files: list[str],
) -> int:
    import asyncio

    from hookagent.claude._combine import combine
    from hookagent.claude._env_file import env_file_for
    from hookagent.claude._output import read_verdict
    from hookagent.claude._runner import default_timeout, run_handler
    from hookagent.cli._hooks_check import handler_text

    workdir = str(payload["cwd"])

    def one(spec: HandlerSpec, env_file: str | None) -> Coroutine[Any, Any, ProcessOutcome]:
        limit = spec.timeout if spec.timeout is not None else default_timeout(event, spec.type)
        if spec.type == "http":
            from hookagent.claude._http_hook import run_http  # only when an http handler is set

            return run_http(spec, payload, timeout=limit)
        return run_handler(
            spec, payload, cwd=workdir, project_dir=project_dir, timeout=limit, env_file=env_file
        )

    with env_file_for(event) as env:
        outcomes = await asyncio.gather(*(one(spec, env and env.path) for spec in specs))
    verdicts = [
        (spec, read_verdict(event, o, spec)) for spec, o in zip(specs, outcomes, strict=True)
    ]
    merged = combine(event, verdicts)
    report = {
        "decision": merged.decision,
        "reason": merged.reason,
        "updated_input": merged.updated_input,
        "additional_context": list(merged.additional_context),
        "continue": merged.continue_,
        "stop_reason": merged.stop_reason,
        "system_message": "\n".join(merged.system_messages) or None,
        "event_fields": {k: v for k, v in merged.extra.items() if k != "overflow_files"},
        **({"env_file": env.path, "exports": env.exports} if env is not None else {}),
        "settings_files": settings_files,
        "hooks": [
            {
                "command": handler_text(spec),
                "exit_code": o.exit_code,
                "duration_ms": round(o.duration_ms, 1),
                "error": v.error or o.error,
            }
            for (spec, v), o in zip(verdicts, outcomes, strict=True)
        ],
    }
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, default=str))
    else:
        _print_report(report)
    if merged.decision in ("deny", "block"):
        typer.echo(f"the hooks {merged.decision} this {event} (exit 1)", err=True)
        return 1
    return 0


def _read_payload(path: Path, event: str, cwd: Path | None) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the payload: {exc.strerror}", file=str(path)) from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", file=str(path)
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError("the payload must be a JSON object", file=str(path))
    data.setdefault("session_id", "hooks-test")
    data.setdefault("transcript_path", "")
    data["cwd"] = str((cwd or Path(data.get("cwd") or ".")).resolve())
    data["hook_event_name"] = event
    return data


def _fits(spec: HandlerSpec, payload: dict[str, Any]) -> bool:
    from hookagent.claude._matchers import compile_claude_matcher
    from hookagent.claude._model import TOOL_EVENTS
    from hookagent.claude._selection import Selected

    field = _SUBJECT_FIELD.get(spec.event)
    subject = payload.get(field) if field else None
    selected = Selected(spec, compile_claude_matcher(spec.matcher, event=spec.event), _rule(spec))
    tool_input = payload.get("tool_input") if spec.event in TOOL_EVENTS else None
    return selected.fits(subject, tool_input, str(payload.get("cwd") or os.getcwd()))


def _rule(spec: HandlerSpec) -> Any:
    from hookagent.claude._model import TOOL_EVENTS
    from hookagent.claude._rules import compile_rule

    if spec.if_rule is None or spec.event not in TOOL_EVENTS:
        return None
    try:
        return compile_rule(spec.if_rule)
    except ValueError as exc:
        raise ConfigError(str(exc), file=spec.source.path, key=f"{spec.where}.if") from exc


def _print_report(report: dict[str, Any]) -> None:
    """Plain lines: a hook's reason or command is printed as it is, brackets and all."""
    say = typer.echo
    say(f"decision: {report['decision']}" + (f" — {report['reason']}" if report["reason"] else ""))
    for key in ("updated_input", "stop_reason", "system_message"):
        if report[key]:
            say(f"{key}: {report[key]}")
    for text in report["additional_context"]:
        say(f"context: {text}")
    for key, value in report["event_fields"].items():  # retry, watchPaths, sessionTitle…
        say(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    if not report["continue"]:
        say("continue: false")
    if "exports" in report:
        say(f"CLAUDE_ENV_FILE {report['env_file']}: {len(report['exports'])} line(s)")
        for line in report["exports"]:
            say(f"  {line}")
    for hook in report["hooks"]:
        error = f" — {hook['error']}" if hook["error"] else ""
        say(f"  {hook['command']}: exit {hook['exit_code']}, {hook['duration_ms']} ms{error}")

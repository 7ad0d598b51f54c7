"""`hookagent hooks check`'s report: the files read, each handler with the hookagent point it
fires at, and the errors and warnings `run` would print, as text or as one JSON object.

As text each handler is a short block (event, point, matcher, timeout; then its command and
where it is set, each on a line of its own), so a path or a command is never cut at the
terminal's width; `--wide` prints one table row per handler instead, however long.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookagent.cli._json_out import emit_json
from hookagent.sessions._settings_files import settings_files

if TYPE_CHECKING:
    from rich.table import Table

    from hookagent.claude._model import HandlerSpec, LoadedSettings

__all__ = ["check_report", "handler_text", "print_check"]

_COLUMNS = ("event", "point", "matcher", "if", "handler", "timeout", "where")


def handler_text(spec: HandlerSpec) -> str:
    """What a handler runs, as one line: the command and its arguments, the url POSTed to,
    the prompt asked or the MCP tool called."""
    if spec.type == "http":
        return f"POST {spec.url}"
    if spec.type in ("prompt", "agent"):
        return f"{spec.type}: {spec.prompt}"
    if spec.type == "mcp_tool":
        return f"mcp_tool: {spec.server}/{spec.tool}"
    return " ".join([spec.command or "", *(spec.args or ())])


def check_report(loaded: LoadedSettings, *, allow: bool, strict: bool) -> dict[str, Any]:
    """The report as `--json` prints it; `ok` is what the exit code says (0 or 1)."""
    from hookagent.claude._checks import check_settings
    from hookagent.claude._events import FIRED
    from hookagent.claude._runner import default_timeout

    report = check_settings(loaded)
    skipped = [str(s) for s in report.skipped]
    errors = [] if allow else skipped
    warnings = list(report.warnings) + ([f"{s}; not run" for s in skipped] if allow else [])
    return {
        "files": list(loaded.files),
        "settings_files": settings_files(loaded),  # full paths, as `hooks test` lists them
        "handlers": [
            {
                "event": spec.event,
                "point": FIRED[spec.event].point.name if spec.event in FIRED else None,
                "matcher": spec.matcher,
                "if": spec.if_rule,
                "type": spec.type,
                "command": handler_text(spec),
                "timeout": spec.timeout
                if spec.timeout is not None
                else default_timeout(spec.event),
                "where": spec.label,
            }
            for spec in loaded.handlers
        ],
        "errors": errors,
        "warnings": warnings,
        "strict": strict,
        "ok": not errors and not (strict and warnings),
    }


def _head(h: dict[str, Any]) -> list[str]:
    head = [h["event"], h["point"] or "(not fired)", f"matcher {h['matcher'] or '*'}"]
    head += [f"if {h['if']}"] if h["if"] else []
    return [*head, f"timeout {h['timeout']:g} s"]


def _table(handlers: list[dict[str, Any]]) -> Table:
    """One row per handler, each cell whole however wide the row gets."""
    from rich.table import Table

    table = Table(*_COLUMNS)
    for column in table.columns:
        column.no_wrap = True
    for h in handlers:
        point = h["point"] or "(not fired)"
        row = (h["event"], point, h["matcher"] or "*", h["if"] or "", h["command"])
        table.add_row(*row, f"{h['timeout']:g} s", h["where"])
    return table


def print_check(report: dict[str, Any], *, as_json: bool, wide: bool) -> None:
    """`report` as one JSON object, or as text: the handlers, then the lines `run` prints."""
    if as_json:
        emit_json(report)
        return
    from rich.console import Console

    # markup off: a command's [brackets] are printed, not read as styles.
    console = Console(
        soft_wrap=True, highlight=False, markup=False, width=100_000 if wide else None
    )
    console.print("files: " + (", ".join(report["files"]) or "none"))
    if wide:
        console.print(_table(report["handlers"]))
    else:
        for h in report["handlers"]:
            console.print(" · ".join(_head(h)))
            console.print(f"  {h['command']}")
            console.print(f"  {h['where']}", style="dim")
    for warning in report["warnings"]:
        console.print(f"warning: {warning}")
    for error in report["errors"]:
        console.print(f"error: {error}")
    errors, warnings = len(report["errors"]), len(report["warnings"])
    console.print(f"{len(report['handlers'])} handlers, {errors} errors, {warnings} warnings")
    if errors:
        console.print(
            "hookagent would not run these hooks, so `run` refuses the settings; "
            "--allow-unsupported-hooks runs without them"
        )
    if report["strict"] and warnings:
        console.print("--strict: the warnings count as errors")

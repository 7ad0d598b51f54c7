"""`hookagent hooks check --claude-project [DIR]` / `--claude-plugin DIR`: everything a
project and its plugins carry, and what hookagent will not honour, and why.

The report is `hooks check`'s (files, handlers, errors, warnings, ok) with a `project`
object: instruction files (and who imported each), path-scoped rules, the names `env` sets,
agent and skill folders, slash commands, `.mcp.json` files and plugins. What `run` would
refuse is an error (exit 1); with `--allow-unsupported-hooks` it is a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console

from hookagent.cli._hooks_check import check_report, print_check
from hookagent.cli._json_out import emit_json
from hookagent.sessions._agent_spec import RunOptions
from hookagent.sessions._claude_project import project_of, project_report

__all__ = ["check_project"]


def check_project(
    options: RunOptions, *, allow: bool, strict: bool, as_json: bool, wide: bool
) -> int:
    """Print the report; 0 when `run` would take the project, else 1."""
    project = project_of(options)
    report = check_report(project.settings, allow=allow, strict=strict)
    report["files"] = list(project.files)
    report["warnings"] = [*project.warnings, *report["warnings"]]
    if allow:
        report["warnings"] += [f"{e}; not honoured" for e in project.errors]
    else:
        report["errors"] = [*project.errors, *report["errors"]]
    report["warnings"] += list(project.instructions.warnings)
    found = project_report(project)
    for key in ("agents", "skills"):
        report["warnings"] += [a.pop("warning") for a in found[key] if "warning" in a]
        found[key] = [a for a in found[key] if a]
    report["project"] = found
    report["ok"] = not report["errors"] and not (strict and report["warnings"])
    if as_json:
        emit_json(report)
    else:
        _print_project(report["project"])
        print_check(report, as_json=False, wide=wide)
    return 0 if report["ok"] else 1


_LINES: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    (
        "instructions",
        lambda f: (
            f"instructions: {f['file']} [{f['memory_type']}]"
            + (f" (imported by {f['imported_by']})" if "imported_by" in f else "")
        ),
    ),
    ("path_rules", lambda r: f"rule for {', '.join(r['paths'])}: {r['file']}"),
    ("permissions", lambda r: f"permission {r['decision']} {r['rule']}: {r['where']}"),
    (
        "commands",
        lambda c: (
            f"command {c['name']}"
            + (f" {c['argument_hint']}" if c.get("argument_hint") else "")
            + f" ({c['source']}): {c['file']}"
        ),
    ),
    ("agents", lambda a: f"agent {a['name']} (model {a['model']}): {a['file']}"),
    ("skills", lambda s: f"skill {s['name']}: {s['file']}"),
    ("mcp", lambda m: f"MCP server {m['name']}: {m['file']}"),
    ("plugins", lambda p: f"plugin {p['name']}: {p['root']}"),
)
"""Each list of the project report, and the line one of its entries prints as."""


def _print_project(found: dict[str, Any]) -> None:
    console = Console(soft_wrap=True, highlight=False, markup=False)
    console.print(f"project: {found['root']}")
    for key, line in _LINES:
        for entry in found[key]:
            console.print(line(entry))
    if found["env"]:
        console.print("env: " + ", ".join(found["env"]))

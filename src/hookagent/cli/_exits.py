"""How a `hookagent` command ends: its exit code, and what it prints last of a run.

Exit codes:

- 0: the run completed, or was stopped (a stop is a decision, not a failure); a command that
  is not a run (`sessions`, `approve`, `worker`…) did what it was asked;
- 1: the run failed;
- 2: misuse or a store problem (a bad model name, script file or plugin; an unknown session
  or run; nothing to answer; a run that cannot be resumed), reported as `error: <message>`
  on stderr, with no traceback;
- 3: the run is waiting: a hook asked a question nobody has answered yet. It is kept in the
  store; `hookagent approve` or `deny` it, then `hookagent resume` it;
- 130: Ctrl-C stopped it. A run stops at its next safe point (see `Agent.run`): what it did
  is shown, with the stopped summary, and a run kept in a store is left to be resumed,
  with the `hookagent resume` command printed.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import typer
from rich.console import Console

from hookagent._errors import ConfigError, StoreError
from hookagent.cli._advice import CLI_ADVICE

if TYPE_CHECKING:
    from hookagent.kernel._result import RunResult

__all__ = [
    "EXIT_CONFIG",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_WAITING",
    "console",
    "exit_code",
    "guarded",
    "interrupted",
    "kept_line",
    "print_json",
]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_CONFIG: Final = 2
EXIT_WAITING: Final = 3
EXIT_INTERRUPTED: Final = 130


def exit_code(result: RunResult) -> int:
    if result.status == "waiting":
        return EXIT_WAITING
    return EXIT_OK if result.status in ("completed", "stopped") else EXIT_FAILED


def guarded(action: Callable[[], int]) -> int:
    """`action()`'s exit code; messages give the command line's advice (`cli.advice`)."""
    from hookagent._remedies import surface

    try:
        with surface(CLI_ADVICE):
            code = action()
    except (ConfigError, StoreError) as exc:
        typer.echo(f"error: {exc}", err=True)
        return EXIT_CONFIG
    except KeyboardInterrupt:  # Ctrl-C outside a run, or a second one
        typer.echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    return code


def interrupted(
    result: RunResult, *, json_output: bool, store_url: str | None = None, kept: bool = False
) -> int:
    """Ctrl-C stopped the run: its result as JSON if asked for (the live view has shown it
    already), and how to take up a run `kept` in the store; the exit code."""
    if json_output:
        print_json(result)
    typer.echo(
        kept_line(result.run_id, store_url) if kept else "interrupted: the run was stopped",
        err=True,
    )
    return EXIT_INTERRUPTED


def kept_line(run_id: str, store_url: str | None) -> str:
    """What Ctrl-C leaves of a run kept in a store, and the command that takes it up."""
    flag = f" --store {shlex.quote(store_url)}" if store_url is not None else ""
    return f"interrupted: run {run_id} is kept; continue it with `hookagent resume {run_id}{flag}`"


def print_json(result: RunResult, **extra: object) -> None:
    data = {**result.to_dict(), **extra}
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def console() -> Console:
    """The console every command prints to."""
    # soft_wrap: long lines are left to the terminal, so piped output stays greppable.
    return Console(soft_wrap=True, highlight=False)

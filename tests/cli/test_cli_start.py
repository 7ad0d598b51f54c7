"""The `hookagent` command starts light: `--help` and a subcommand's `--help` load typer,
rich and the command line's own modules, never the runtime behind the commands (the agent,
the kernel, Claude Code hooks, stores, MCP). Checked by what a real `python -m hookagent`
process imports, not by its time, which a shared machine makes noisy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

HEAVY: Final = (
    "hookagent._agent",
    "hookagent._builder",
    "hookagent.kernel._loop",
    "hookagent.claude._bridge",
    "hookagent.store._base",
    "mcp",
    "httpx",
    "httpx2",
    "yaml",
)
"""Never loaded to print help."""
LIGHT: Final = frozenset(
    {
        "hookagent",
        "hookagent._errors",
        "hookagent._lazy",
        "hookagent._remedies",
        # what a run's options are, shared with `hookagent serve` (their imports are lazy)
        "hookagent.sessions",
        "hookagent.sessions._agent_spec",
        "hookagent.sessions._mcp_servers",
        "hookagent.sessions._model_aliases",
        "hookagent.sessions._plugins",
        "hookagent.sessions._prices",
        "hookagent.sessions._records_json",
        "hookagent.sessions._settings_files",
        "hookagent.sessions._validate",
        "hookagent.sessions._warn",
    }
)
"""The modules of hookagent outside `hookagent.cli` that help may load."""


def _imported(tmp_path: Path, *args: str) -> set[str]:
    """The modules `python -X importtime -m hookagent ARGS` imported; it must exit 0."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hookagent", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Usage" in done.stdout
    lines = (line for line in done.stderr.splitlines() if line.startswith("import time:"))
    names = {line.rsplit("|", 1)[1].strip() for line in lines}
    assert "typer" in names  # the report was read
    return names


@pytest.mark.parametrize(
    "args",
    [("--help",), ("hooks", "test", "--help"), ("sessions", "ls", "--help"), ("run", "--help")],
)
def test_help_loads_no_runtime(tmp_path: Path, args: tuple[str, ...]) -> None:
    names = _imported(tmp_path, *args)
    assert [m for m in HEAVY if m in names] == []
    runtime = sorted(
        m for m in names if m.startswith("hookagent.") and not m.startswith("hookagent.cli")
    )
    assert set(runtime) <= LIGHT, runtime


def test_top_help_loads_no_pydantic(tmp_path: Path) -> None:
    """Only a subcommand's parameters make typer load pydantic (to coerce them); the list of
    commands needs none, and nothing of hookagent's own loads it."""
    assert "pydantic" not in _imported(tmp_path, "--help")

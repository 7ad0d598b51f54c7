"""The `hookagent` command starts light: `--help` and a subcommand's `--help` load typer,
rich and the command line's own modules, never the runtime behind the commands (the agent,
the kernel, Claude Code hooks, stores, MCP). Checked by what a real `hookagent`
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
        "hookagent._record",
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


SHOW_MODULES: Final = (
    "import atexit, sys; "
    "atexit.register(lambda: print(*sorted(sys.modules), sep='\\n', file=sys.stderr)); "
    "from hookagent.cli._app import main; main()"
)
"""The command, printing every module it loaded as it exits (`-X importtime` would miss those
loaded through `importlib`)."""


def _imported(tmp_path: Path, *args: str) -> set[str]:
    """The modules the `hookagent ARGS` process imported; it must exit 0."""
    done = subprocess.run(
        [sys.executable, "-c", SHOW_MODULES, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Usage" in done.stdout or "decision:" in done.stdout
    names = set(done.stderr.split())
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


def test_hooks_test_running_a_hook_loads_neither_rich_nor_the_kernel(tmp_path: Path) -> None:
    """`hooks test` runs a settings file's handlers alone: no hook points, no loop, no
    console library (its report is plain lines)."""
    (tmp_path / "p.json").write_text('{"tool_name": "Bash", "tool_input": {"command": "ls"}}')
    names = _imported(tmp_path, "hooks", "test", "PreToolUse", "-i", "p.json", "-c", "true")
    assert "hookagent.claude._runner" in names  # the hook did run
    loaded = {n for n in names if n.startswith(("hookagent.kernel", "hookagent.hooks", "rich"))}
    assert loaded == set()


def test_a_group_named_first_loads_only_its_own_commands(tmp_path: Path) -> None:
    names = _imported(tmp_path, "hooks", "test", "--help")
    assert "hookagent.cli._hooks_cmd" in names
    others = {"_run_cmd", "_sessions_cmd", "_serve_cmd", "_setup_cmd", "_audit_cmd", "_mcp_cmd"}
    assert {f"hookagent.cli.{m}" for m in others} & names == set()


FULL_APP: Final = "from hookagent.cli._app import app; app(prog_name='hookagent')"
"""The command with every group loaded, whatever the command line names."""


@pytest.mark.parametrize(
    "args",
    [
        ("hooks", "test", "--help"),
        ("hooks", "--help"),
        ("hooks",),
        ("hooks", "nonesuch"),
        ("hooks", "test"),
        ("audit", "--help"),
        ("mcp", "--help"),
        ("temporal", "--help"),
    ],
)
def test_a_group_loaded_alone_reads_as_under_the_full_command(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """Help, usage lines, errors and exit codes are the same either way."""

    def output(*command: str) -> tuple[int, str, str]:
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
        done = subprocess.run(
            [sys.executable, *command, *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        return done.returncode, done.stdout, done.stderr

    alone = output("-m", "hookagent")
    assert "Usage: hookagent" in alone[1] + alone[2]
    assert alone == output("-c", FULL_APP)

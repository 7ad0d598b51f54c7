"""`hookagent run --allow-bash --settings FILE`: `excludedCommands` run outside the sandbox,
other commands cannot write outside the root. The sentinel folder is the test's own."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookagent.capabilities.bash._sandbox import probe_bwrap

from .run_cli import hookagent


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    probe = probe_bwrap()
    if probe.path is None:
        pytest.skip(f"no sandbox here: {probe.reason}")
    base = Path("/var/tmp")
    folder = Path(tempfile.mkdtemp(prefix="hookagent-cli-", dir=base if base.is_dir() else None))
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def test_an_excluded_command_from_a_settings_file_runs_outside(
    tmp_path: Path, outside: Path
) -> None:
    calls = [
        {"name": "Bash", "args": {"command": f"touch {outside / 'excluded'}"}},
        {"name": "Bash", "args": {"command": f"cp /dev/null {outside / 'other'}"}},
    ]
    turns = [{"tool_calls": calls}, {"text": "ok"}]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    (tmp_path / "s.json").write_text(json.dumps({"sandbox": {"excludedCommands": ["touch *"]}}))
    out = hookagent(
        tmp_path,
        *("run", "go", "--model", "scripted:turns.json", "--allow-bash", "--json"),
        *("--settings", "s.json"),
    )
    assert out.returncode == 0, out.stderr
    assert (outside / "excluded").exists()
    assert not (outside / "other").exists()
    results = [call["result"] for call in json.loads(out.stdout)["tool_calls"]]
    assert results[0] == "(no output)"
    assert "Read-only file system" in results[1]


def test_with_approvals_a_sandboxed_call_runs_and_an_excluded_one_is_asked_about(
    tmp_path: Path, outside: Path
) -> None:
    calls = [
        {"name": "Bash", "args": {"command": "echo inside"}},
        {"name": "Bash", "args": {"command": f"touch {outside / 'excluded'}"}},
    ]
    (tmp_path / "turns.json").write_text(json.dumps([{"tool_calls": calls}, {"text": "ok"}]))
    (tmp_path / "s.json").write_text(json.dumps({"sandbox": {"excludedCommands": ["touch *"]}}))
    out = hookagent(
        tmp_path,
        *("run", "go", "--model", "scripted:turns.json", "--allow-bash", "--approvals"),
        *("--json", "--settings", "s.json"),
    )
    assert out.returncode == 0, out.stderr
    inside, excluded = json.loads(out.stdout)["tool_calls"]
    assert inside["result"] == "inside"  # auto-allowed: nobody is at a terminal to ask
    assert excluded["blocked"]  # asked, and with no terminal nobody approves
    assert not (outside / "excluded").exists()

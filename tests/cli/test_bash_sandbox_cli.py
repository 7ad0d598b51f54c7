"""`hookagent run --allow-bash` reads the `sandbox` key of its settings files."""

from __future__ import annotations

import json
from pathlib import Path

from .run_cli import hookagent


def test_the_cli_reads_the_sandbox_key_of_its_settings(tmp_path: Path) -> None:
    turns = [{"tool_calls": [{"name": "Bash", "args": {"command": "echo ran"}}]}, {"text": "ok"}]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps({"sandbox": {"enabled": False}}))
    bad.write_text(json.dumps({"sandbox": {"excludedCommands": "docker"}}))
    args = ("run", "go", "--model", "scripted:turns.json", "--allow-bash", "--json")
    out = hookagent(tmp_path, *args, "--settings", "good.json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["tool_calls"][0]["result"] == "ran"
    out = hookagent(tmp_path, *args, "--settings", "bad.json")
    assert out.returncode != 0
    assert f"{bad.name}, sandbox.excludedCommands: must be a list" in out.stderr

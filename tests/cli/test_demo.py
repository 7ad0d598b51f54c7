"""`hookagent demo`: runs offline, shows the four scenarios, and checks its own claims."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from hookagent.cli._demo import SCENARIOS, run_demo


def capture() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=200, soft_wrap=True, no_color=True), out


def test_demo_command_shows_the_four_scenarios(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hookagent", "demo"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=60,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "before_tool: block by user:block_rm_rf" in out
    assert "before_tool: modify by user:redact_secrets" in out
    assert "API_KEY=***" in out and "REGION=eu-west-1" in out
    assert "A stop hook forces one more step" in out
    assert "stop: block by user:check_before_stop — nothing has checked the file" in out
    assert "should_continue: stop by limits:step_limit" in out
    assert "stop reason: steps_limit" in out
    assert list(tmp_path.iterdir()) == []  # the tools work in their own temporary folders


def test_every_scenario_plays_out_as_claimed() -> None:
    console, out = capture()
    assert run_demo(console) == 0
    assert "demo check failed" not in out.getvalue()
    assert out.getvalue().count("─ completed") == 3
    assert out.getvalue().count("─ stopped") == 1


def test_the_demo_notices_when_a_scenario_drifts() -> None:
    drifted = dataclasses.replace(SCENARIOS[1], shows=("before_tool", "block"))
    console, out = capture()

    assert run_demo(console, (drifted,)) == 1
    assert "no block decision at before_tool" in out.getvalue()


def test_demo_json_is_each_runs_record_and_drift_is_exit_1(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hookagent", "demo", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)  # nothing else on stdout: no live view
    assert data["ok"] is True and data["problems"] == []
    assert [s["result"]["stop_reason"] for s in data["scenarios"]] == [
        "completed",
        "completed",
        "completed",
        "steps_limit",
    ]
    first = data["scenarios"][0]
    assert first["shows"] == {"point": "before_tool", "outcome": "block"}
    assert any(
        d["decision"] == "block" and d["hook"] == "user:block_rm_rf"
        for d in first["result"]["decisions"]
    )
    drifted = dataclasses.replace(SCENARIOS[0], stop_reason="steps_limit")
    console, _ = capture()
    assert run_demo(console, (drifted,), json_output=True) == 1

"""CLI errors give CLI remedies: a question in a run with no terminal and no store says how
to answer it from the command line, not how to call `run()` from Python."""

from __future__ import annotations

import json
from pathlib import Path

from .run_cli import hookagent
from .test_sessions_cli import PLUGIN, SCRIPT


def test_a_question_with_no_terminal_names_session_and_approve(tmp_path: Path) -> None:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    args = ("run", "ship it", "-m", "scripted:turns.json", "-p", "plugin.py", "--json")
    done = hookagent(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    [call] = json.loads(done.stdout)["tool_calls"]
    assert call["blocked"] and "pass approver=" not in call["result"]
    [decision] = [d for d in json.loads(done.stdout)["decisions"] if d["point"] == "before_tool"]
    assert "--session NAME" in decision["reason"]
    assert "hookagent approve RUN" in decision["reason"]
    assert "hookagent resume RUN" in decision["reason"]
    assert not (tmp_path / "deployed.txt").exists()
    # The remedy works: with --session the question pauses the run (exit 3).
    paused = hookagent(tmp_path, *args, "--session", "s")
    assert paused.returncode == 3, paused.stderr


PRICED_IN_PYTHON = """
def configure(builder):
    builder.limits(max_cost=1.0)  # a CostLimit with the library's own advice
"""


def test_an_unpriced_model_under_the_cli_names_price_not_cost_limit(tmp_path: Path) -> None:
    (tmp_path / "plugin.py").write_text(PRICED_IN_PYTHON)
    turn = {"text": "hi", "usage": {"input_tokens": 10, "output_tokens": 5}, "model": "acme-1"}
    (tmp_path / "turns.json").write_text(json.dumps([turn]))
    args = ("run", "go", "-m", "scripted:turns.json", "-p", "plugin.py", "--json")
    done = hookagent(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout)["stop_message"]
    assert "no price for model 'acme-1'" in message
    assert "--price acme-1=IN/OUT" in message
    assert "CostLimit(" not in message and "Price(" not in message

"""`hookagent replay`: a session recorded under one plugin, replayed under another."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from .run_cli import hookagent

PLUGIN = textwrap.dedent(
    '''
    from hookagent import BEFORE_TOOL, HookResult

    def bash(command: str) -> str:
        """Run a command."""
        return "ran " + command

    def policy(event):
        if "push" in event.args["command"]:
            return HookResult.{verdict}
        return None

    def configure(builder):
        builder.tools(bash)
        builder.on(BEFORE_TOOL, policy, match="bash", name="policy")
    '''
)

SCRIPT = [
    {"tool_calls": [{"name": "bash", "args": {"command": "git push"}, "id": "c1"}]},
    {"text": "pushed"},
]


def test_replay_reports_a_rule_that_now_denies(tmp_path: Path) -> None:
    (tmp_path / "old.py").write_text(PLUGIN.replace("{verdict}", 'context("ok to push")'))
    (tmp_path / "new.py").write_text(PLUGIN.replace("{verdict}", 'block("pushes need review")'))
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    ran = hookagent(
        tmp_path,
        "run",
        "push",
        "--model",
        "scripted:turns.json",
        "--plugin",
        "old.py",
        "--session",
        "s",
    )
    assert ran.returncode == 0, ran.stderr
    same = hookagent(tmp_path, "replay", "s")
    assert same.returncode == 0 and "0 decision(s) changed" in same.stdout, same.stderr
    changed = hookagent(tmp_path, "replay", "s", "--plugin", "new.py", "--json", "--fail-on-change")
    assert changed.returncode == 1, changed.stderr
    report = json.loads(changed.stdout)
    assert report["changed"] == 1
    [change] = report["changes"]
    assert change == {
        "point": "before_tool",
        "step": 1,
        "call_id": "c1",
        "before": "context by user:policy",
        "after": "block by user:policy",
        "reason": "pushes need review",
    }
    assert hookagent(tmp_path, "replay", "nope").returncode == 2


def test_replay_from_an_audit_trail_file(tmp_path: Path) -> None:
    audited = PLUGIN.replace("{verdict}", 'context("ok to push")').replace(
        "def configure(builder):",
        "def configure(builder):\n"
        "    from hookagent.capabilities.audit import AuditTrail\n"
        "    builder.with_(AuditTrail('audit.jsonl'))",
    )
    (tmp_path / "old.py").write_text(audited)
    (tmp_path / "new.py").write_text(PLUGIN.replace("{verdict}", 'block("pushes need review")'))
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    ran = hookagent(tmp_path, "run", "push", "--model", "scripted:turns.json", "--plugin", "old.py")
    assert ran.returncode == 0, ran.stderr
    changed = hookagent(tmp_path, "replay", "audit.jsonl", "--plugin", "new.py", "--json")
    assert changed.returncode == 0, changed.stderr
    [change] = json.loads(changed.stdout)["changes"]
    assert (change["before"], change["after"]) == ("context by user:policy", "block by user:policy")

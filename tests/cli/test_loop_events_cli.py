"""`hookagent hooks test` for the loop events hookagent fires: PostToolBatch, StopFailure,
PermissionDenied, TaskCreated and TaskCompleted, each with a real hook script."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from .run_cli import hookagent

PAYLOADS: dict[str, dict[str, Any]] = {
    "PostToolBatch": {
        "tool_calls": [
            {
                "tool_name": "Bash",
                "tool_input": {"command": "ls"},
                "tool_use_id": "t1",
                "tool_response": "a.txt",
            },
        ]
    },
    "StopFailure": {
        "error": "rate_limit",
        "error_details": "test:m (HTTP 429): slow down",
        "last_assistant_message": "",
    },
    "PermissionDenied": {
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
        "tool_use_id": "t1",
        "reason": "denied by approver: no",
    },
    "TaskCreated": {"task_id": "1", "task_subject": "Ship it", "task_description": ""},
    "TaskCompleted": {"task_id": "1", "task_subject": "Ship it", "task_description": ""},
}

ANSWERS: dict[str, tuple[dict[str, Any], int, str, int]] = {
    "PostToolBatch": ({"decision": "block", "reason": "enough"}, 0, "block", 1),
    "StopFailure": ({"continue": False}, 2, "none", 0),  # output and exit 2 are ignored
    "PermissionDenied": (
        {"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": True}},
        0,
        "none",
        0,
    ),
    "TaskCreated": ({}, 2, "block", 1),
    "TaskCompleted": ({}, 2, "block", 1),
}
"""Per event: the script's JSON answer, its exit code, the merged decision, the exit code."""


def project(tmp_path: Path, event: str, matcher: str | None = None) -> Path:
    obj, code, _, _ = ANSWERS[event]
    hook = tmp_path / "hook.py"
    hook.write_text(
        "import json, sys\n"
        "data = sys.stdin.read()\n"
        "open('seen.json', 'w').write(data)\n"
        "print('refused by policy', file=sys.stderr)\n"
        f"print(json.dumps({obj!r}))\n"
        f"sys.exit({code})\n"
    )
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": f"{sys.executable} hook.py"}]}
    if matcher is not None:
        group["matcher"] = matcher
    (tmp_path / "s.json").write_text(json.dumps({"hooks": {event: [group]}}))
    (tmp_path / "p.json").write_text(json.dumps(PAYLOADS[event]))
    return tmp_path


def hooks_test(root: Path, event: str) -> Any:
    args = ("hooks", "test", event, "--input", "p.json", "--settings", "s.json")
    return hookagent(root, *args, "--no-discover", "--json")


@pytest.mark.parametrize("event", list(PAYLOADS))
def test_hooks_test_runs_each_loop_event_and_reads_its_answer(tmp_path: Path, event: str) -> None:
    root = project(tmp_path, event)
    done = hooks_test(root, event)
    _, _, decision, code = ANSWERS[event]
    assert done.returncode == code, done.stderr
    report = json.loads(done.stdout)
    assert report["decision"] == decision
    seen = json.loads((root / "seen.json").read_text())
    assert seen["hook_event_name"] == event
    assert {k: seen[k] for k in PAYLOADS[event]} == PAYLOADS[event]
    if event == "PermissionDenied":
        assert report["event_fields"] == {"retry": True}
    if decision == "block":
        assert report["reason"] in ("enough", "refused by policy")


def test_hooks_test_matches_stop_failure_on_the_error_type(tmp_path: Path) -> None:
    root = project(tmp_path, "StopFailure", matcher="server_error|billing_error")
    done = hooks_test(root, "StopFailure")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hooks"] == []
    assert not (root / "seen.json").exists()

"""Exit codes scripts can gate on: `hooks test` and `hooks check` answer 0 for yes, 1 for
no (a deny or block; errors, or warnings under `--strict`), 2 when the question could not
be asked (an unknown event, a payload that is not JSON)."""

from __future__ import annotations

import json
from pathlib import Path

from .run_cli import hookagent

BLOCK = "echo 'no rm' >&2; exit 2"
PAYLOAD = {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}


def test_hooks_test_exits_1_on_deny_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text(json.dumps(PAYLOAD))
    args = ("hooks", "test", "PreToolUse", "--input", "p.json", "--no-discover")
    denied = hookagent(tmp_path, *args, "--command", BLOCK)
    assert denied.returncode == 1, denied.stderr
    assert "decision: deny" in denied.stdout
    assert "the hooks deny this PreToolUse (exit 1)" in denied.stderr
    allowed = hookagent(tmp_path, *args, "--command", "true", "--json")
    assert allowed.returncode == 0, allowed.stderr
    assert json.loads(allowed.stdout)["decision"] == "none"


def test_hooks_test_exits_1_on_block(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text(json.dumps({"tool_name": "Bash", "tool_response": {}}))
    out = hookagent(
        tmp_path, "hooks", "test", "PostToolUse", "--input", "p.json", "--command", BLOCK
    )
    assert out.returncode == 1, out.stderr
    assert "the hooks block this PostToolUse" in out.stderr


def test_hooks_test_exits_2_on_an_unknown_event_or_bad_input(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text(json.dumps(PAYLOAD))
    (tmp_path / "bad.json").write_text("{nope")
    typo = hookagent(tmp_path, "hooks", "test", "PreToolUs", "--input", "p.json", "-c", "true")
    assert typo.returncode == 2
    assert 'unknown event "PreToolUs" (did you mean "PreToolUse"?)' in typo.stderr
    case = hookagent(tmp_path, "hooks", "test", "pretooluse", "--input", "p.json", "-c", "true")
    assert case.returncode == 2 and 'did you mean "PreToolUse"?' in case.stderr
    bad = hookagent(tmp_path, "hooks", "test", "PreToolUse", "--input", "bad.json", "-c", "true")
    assert bad.returncode == 2 and "bad.json" in bad.stderr and "not valid JSON" in bad.stderr
    missing = hookagent(tmp_path, "hooks", "test", "PreToolUse", "--input", "no.json", "-c", "x")
    assert missing.returncode == 2 and "no.json" in missing.stderr


def test_hooks_check_exits_1_on_errors_and_strict_makes_warnings_errors(tmp_path: Path) -> None:
    warn = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "if": "x"}]}]}}
    err = {"hooks": {"TeammateIdle": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    (tmp_path / "warn.json").write_text(json.dumps(warn))
    (tmp_path / "err.json").write_text(json.dumps(err))
    check = ("hooks", "check", "--no-discover", "--settings")
    warned = hookagent(tmp_path, *check, "warn.json")
    assert warned.returncode == 0, warned.stdout
    assert "0 errors, 1 warnings" in warned.stdout
    strict = hookagent(tmp_path, *check, "warn.json", "--strict")
    assert strict.returncode == 1, strict.stdout
    assert "--strict: the warnings count as errors" in strict.stdout
    failed = hookagent(tmp_path, *check, "err.json")
    assert failed.returncode == 1, failed.stdout
    assert "1 errors" in failed.stdout
    unreadable = hookagent(tmp_path, *check, "missing.json")
    assert unreadable.returncode == 2 and "missing.json" in unreadable.stderr

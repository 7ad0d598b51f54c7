"""Validation at the door: a bad option is exit 2 with `error: --option: …` naming the value,
before a store is opened or a model called."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .run_cli import hookagent


@pytest.fixture
def script(tmp_path: Path) -> Path:
    (tmp_path / "turns.json").write_text(json.dumps([{"text": "hi"}]))
    (tmp_path / "a_file").write_text("")
    return tmp_path


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--root", "nodir"), "--root: no such directory: nodir"),
        (("--root", "a_file"), "--root: not a directory: a_file"),
        (("--max-steps", "0"), "--max-steps: must be a whole number >= 1, not 0"),
        (("--max-tokens", "-3"), "--max-tokens: must be a whole number >= 1, not -3"),
        (("--max-seconds", "nan"), "--max-seconds: must be a positive number of seconds, not nan"),
        (("--max-cost", "-1"), "--max-cost: must be a positive number of US dollars, not -1"),
        (("--max-result-chars", "-5"), "--max-result-chars: must be a whole number >= 0"),
        (("--base-url", "localhost:8000"), "--base-url: must be an http:// or https:// URL"),
    ],
)
def test_run_refuses_a_bad_option_before_anything_runs(
    script: Path, args: tuple[str, ...], named: str
) -> None:
    out = hookagent(script, "run", "hi", "-m", "scripted:turns.json", "--session", "s", *args)
    assert out.returncode == 2, out.stdout
    assert f"error: {named}" in out.stderr
    assert out.stdout == "" and not (script / ".hookagent").exists()  # no store was opened


def test_approve_refuses_a_negative_ttl(tmp_path: Path) -> None:
    for ttl in ("-5", "0", "nan"):
        out = hookagent(tmp_path, "approve", "some-run", "--ttl", ttl)
        assert out.returncode == 2
        assert f"error: --ttl: must be a positive number of seconds, not {ttl}" in out.stderr
    assert not (tmp_path / ".hookagent").exists()


def test_hooks_commands_refuse_a_missing_project_or_cwd(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text("{}")
    check = hookagent(tmp_path, "hooks", "check", "--project", "nope")
    assert check.returncode == 2 and "error: --project: no such directory: nope" in check.stderr
    test = ("hooks", "test", "PreToolUse", "-i", "p.json", "-c", "true", "--cwd", "nope")
    out = hookagent(tmp_path, *test)
    assert out.returncode == 2 and "error: --cwd: no such directory: nope" in out.stderr


def test_a_plugin_hook_with_a_word_for_priority_is_refused(script: Path) -> None:
    (script / "p.py").write_text(
        "import hookagent as h\n\n"
        "def configure(builder):\n"
        "    builder.on(h.BEFORE_TOOL, lambda e: None, name='guard', priority='high')\n"
    )
    out = hookagent(script, "run", "hi", "-m", "scripted:turns.json", "--plugin", "p.py")
    assert out.returncode == 2, out.stdout
    assert "hook user:guard at before_tool" in out.stderr
    assert "priority must be a whole number (higher runs first), not 'high'" in out.stderr

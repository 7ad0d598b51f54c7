"""`run`, `hooks check` and `hooks test` read the same Claude Code settings files for the same
flags (only `--settings` files by default, the standard locations too with
`--discover-settings`), and each says which it read."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .run_cli import hookagent

GUARD = f"{sys.executable} -c \"print('checked')\""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".claude").mkdir(parents=True)
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD}]}]}
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (root / "extra.json").write_text(json.dumps({"hooks": {}}))
    (root / "turns.json").write_text(json.dumps([{"text": "done"}]))
    (root / "p.json").write_text(json.dumps({"tool_name": "Bash", "tool_input": {}}))
    (tmp_path / "home").mkdir()
    return root


def _cli(project: Path, *args: str) -> tuple[int, str, str]:
    done = hookagent(project, *args, env={"HOME": str(project.parent / "home")})
    return done.returncode, done.stdout, done.stderr


def _read(stderr: str) -> str:
    [line] = [line for line in stderr.splitlines() if line.startswith("settings: ")]
    return line


def _three(project: Path, *flags: str) -> tuple[list[str], list[str], str]:
    """What `hooks check` and `hooks test` list in --json (`run --json` lists the same, kept
    in a session or not), and the line `run` prints."""
    code, out, err = _cli(project, "hooks", "check", "--json", *flags)
    assert code == 0, err
    checked = json.loads(out)["settings_files"]
    code, out, err = _cli(project, "hooks", "test", "PreToolUse", "-i", "p.json", "--json", *flags)
    assert code == 0, err
    tested = json.loads(out)["settings_files"]
    code, out, err = _cli(project, "run", "go", "-m", "scripted:turns.json", "--json", *flags)
    assert code == 0, err
    assert json.loads(out)["settings_files"] == checked
    kept = ("run", "go", "-m", "scripted:turns.json", "--session", "s", "--json", *flags)
    code, out, err = _cli(project, *kept)
    assert code == 0, err
    assert json.loads(out)["settings_files"] == checked
    return checked, tested, _read(err)


def test_by_default_all_three_read_only_the_settings_files_given(project: Path) -> None:
    checked, tested, ran = _three(project, "--settings", "extra.json")
    assert checked == tested == [str(project / "extra.json")]
    assert ran == f"settings: read {project / 'extra.json'}"


def test_discover_settings_makes_all_three_read_the_project_settings(project: Path) -> None:
    checked, tested, ran = _three(project, "--discover-settings")
    standard = str(project / ".claude" / "settings.json")
    assert checked == tested == [standard]
    assert ran == f"settings: read {standard}"


def test_a_command_that_read_none_names_the_file_it_did_not_read(project: Path) -> None:
    code, out, err = _cli(project, "hooks", "check")
    assert code == 0, err
    line = _read(err)
    assert line.startswith("settings: none read (")
    assert str(project / ".claude" / "settings.json") in line
    assert "add --discover-settings" in line
    assert "files: none" in out


def test_discover_and_no_discover_together_are_exit_2(project: Path) -> None:
    for command in (("hooks", "check"), ("hooks", "test", "PreToolUse", "-i", "p.json")):
        code, _, err = _cli(project, *command, "--discover-settings", "--no-discover")
        assert code == 2
        assert "error: --no-discover: --discover-settings and --no-discover contradict" in err

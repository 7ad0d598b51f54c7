"""`hookagent hooks test` gives SessionStart (and Setup, CwdChanged, FileChanged) hooks a
`CLAUDE_ENV_FILE`, as Claude Code does, and reports the exports they wrote: a `set -u` script
written for Claude Code must not fail with `CLAUDE_ENV_FILE: unbound variable`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import run_cli

SCRIPT = """#!/bin/bash
set -euo pipefail
echo "export NODE_ENV=development" >> "$CLAUDE_ENV_FILE"
echo 'export PATH="$PATH:./node_modules/.bin"' >> "$CLAUDE_ENV_FILE"
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "setup-env.sh").write_text(SCRIPT)
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": "bash setup-env.sh"}]}]}
    (tmp_path / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (tmp_path / "p.json").write_text(json.dumps({"source": "startup"}))
    return tmp_path


def hooks_test(root: Path, env: dict[str, str], *more: str) -> tuple[int, str, str]:
    args = ["hooks", "test", "SessionStart", "--input", "p.json", "--settings", "settings.json"]
    out = run_cli.hookagent(root, *args, "--no-discover", *more, env=env, timeout=120)
    return out.returncode, out.stdout, out.stderr


EXPORTS = ["export NODE_ENV=development", 'export PATH="$PATH:./node_modules/.bin"']


def test_a_temporary_env_file_is_given_and_its_exports_reported(tmp_path: Path) -> None:
    code, stdout, stderr = hooks_test(project(tmp_path), {"CLAUDE_ENV_FILE": ""}, "--json")
    assert code == 0, stderr
    assert "unbound variable" not in stderr
    report = json.loads(stdout)
    assert report["exports"] == EXPORTS
    assert report["hooks"][0]["exit_code"] == 0
    assert not Path(report["env_file"]).exists()  # the temporary file is removed


@pytest.mark.parametrize("as_json", [True, False])
def test_the_callers_env_file_is_used_and_kept(tmp_path: Path, as_json: bool) -> None:
    own = tmp_path / "own.sh"
    own.write_text("export KEEP=1\n")
    flags = ["--json"] if as_json else []
    code, stdout, stderr = hooks_test(project(tmp_path), {"CLAUDE_ENV_FILE": str(own)}, *flags)
    assert code == 0, stderr
    assert own.read_text().splitlines() == ["export KEEP=1", *EXPORTS]
    if as_json:
        assert json.loads(stdout)["exports"] == EXPORTS  # only what the hooks added
    else:
        assert f"CLAUDE_ENV_FILE {own}: 2 line(s)" in stdout
        assert "export NODE_ENV=development" in stdout


def test_a_prompt_handler_is_named_as_not_run(tmp_path: Path) -> None:
    root = project(tmp_path)
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}
    hooks["Stop"] = [{"hooks": [{"type": "prompt", "prompt": "done?"}]}]
    (root / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (root / "stop.json").write_text("{}")
    args = ["hooks", "test", "Stop", "--input", "stop.json", "--settings", "settings.json"]
    out = run_cli.hookagent(root, *args, "--no-discover", timeout=120)
    assert out.returncode == 0, out.stderr
    assert "hooks.Stop[0].hooks[0]: a prompt handler; not run by hooks test" in out.stderr

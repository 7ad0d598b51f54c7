"""`hookagent run --settings` with a PreToolUse hook that floods stderr and exits 2: the model
reads a bounded preview stating the whole size, and the whole text is saved in the run's
folder beside the store, never in `$TMPDIR`."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

from . import run_cli

FLOOD = 3_000_000
"""Characters written to stderr: far past the 64 KiB a hook's stderr keeps in memory."""

HOOK = textwrap.dedent(
    f"""
    import sys
    sys.stdin.read()
    line = "e" * 99 + "\\n"
    for _ in range({FLOOD // 100}):
        sys.stderr.write(line)
    sys.exit(2)
    """
)
PLUGIN = textwrap.dedent(
    '''
    import hookagent as h

    @h.tool
    def Bash(command: str) -> str:
        """Pretend to run a command."""
        return f"ran {command}"

    def configure(builder):
        builder.tools(Bash)
    '''
)


def test_a_stderr_flood_is_a_preview_for_the_model_and_saved_whole_with_the_run(
    tmp_path: Path,
) -> None:
    (tmp_path / "flood.py").write_text(HOOK)
    (tmp_path / "plugin.py").write_text(PLUGIN)
    command = f"{sys.executable} flood.py"
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
    }
    (tmp_path / "settings.json").write_text(json.dumps({"hooks": hooks}))
    turns = [
        {"tool_calls": [{"name": "Bash", "args": {"command": "ls"}, "id": "c1"}]},
        {"text": "ok"},
    ]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    done = run_cli.hookagent(
        tmp_path,
        *("run", "go", "--model", "scripted:turns.json", "--plugin", "plugin.py"),
        *("--settings", "settings.json", "--session", "s", "--json"),
        env={"TMPDIR": str(scratch)},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    [call] = result["tool_calls"]
    text = call["result"]
    assert len(text) < 2_600, len(text)
    assert f"PreToolUse hook stderr too large ({FLOOD:,} bytes)" in text
    match = re.search(r"Full output saved to: (\S+)", text)
    assert match is not None, text[:300]
    saved = Path(match.group(1))
    assert saved.parent == tmp_path / ".hookagent" / "runs" / result["run_id"]
    assert saved.stat().st_size == FLOOD
    assert list(scratch.iterdir()) == []

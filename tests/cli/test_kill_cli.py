"""`hookagent run --session` killed with SIGKILL in the middle, then `hookagent resume`: a
few kill points with the real command line (every barrier is covered, in forked processes,
by tests/durable/test_kill.py)."""

from __future__ import annotations

import json
import signal
import subprocess
import textwrap
from pathlib import Path

import pytest

from . import run_cli

PLUGIN = textwrap.dedent(
    '''
    import os
    import signal
    from pathlib import Path

    from hookagent.store._sqlite import SQLiteStore

    LOG = Path(__file__).with_name("lines.txt")
    KILL_AT = int(os.environ.get("KILL_AT") or 0)
    _flush = SQLiteStore.flush
    _count = 0

    async def flush(self, batch):
        global _count
        _count += 1
        await _flush(self, batch)
        if _count == KILL_AT:
            os.kill(os.getpid(), signal.SIGKILL)

    SQLiteStore.flush = flush

    def append(line: str) -> str:
        """Append a line to the log."""
        with LOG.open("a") as log:
            log.write(line + "\\n")
        return f"appended {line}"

    def configure(builder):
        builder.tools(append)
    '''
)

SCRIPT = [
    *(
        {"tool_calls": [{"name": "append", "args": {"line": f"L{i}"}, "id": f"c{i}"}]}
        for i in range(3)
    ),
    {"text": "All appended."},
]


def hookagent(cwd: Path, *args: str, kill_at: int = 0) -> subprocess.CompletedProcess[str]:
    env = {"HOOKAGENT_WORKER": "cli-kill-test", "KILL_AT": str(kill_at)}
    return run_cli.hookagent(cwd, *args, env=env)


# The writes of this run: 1 its start, then per call its `started` and its result (2-7), 8
# the end. Killed after a `started`, after a result, and after the last call's result.
@pytest.mark.parametrize("kill_at", [2, 5, 7])
def test_a_killed_cli_run_resumes_with_every_line_once(tmp_path: Path, kill_at: int) -> None:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    args = ("run", "append", "--model", "scripted:turns.json", "--plugin", "plugin.py")
    killed = hookagent(tmp_path, *args, "--session", "s", kill_at=kill_at)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = hookagent(tmp_path, "resume", "s")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    shown = json.loads(hookagent(tmp_path, "sessions", "show", "s", "--json").stdout)
    lines = (tmp_path / "lines.txt").read_text().split()
    doubts = {
        call["call_id"]
        for step in shown["steps"]
        for call in step["tool_calls"]
        if call["result"].startswith("In doubt")
    }
    for i in range(3):
        assert lines.count(f"L{i}") <= 1 if f"c{i}" in doubts else lines.count(f"L{i}") == 1, lines
    assert shown["session"]["status"] == "completed"

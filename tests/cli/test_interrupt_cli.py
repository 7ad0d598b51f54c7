"""`hookagent run` and `hookagent resume` with a plain `def` tool that takes its time: the live
view shows the call while it runs, and Ctrl-C stops the run there, keeps what was shown, exits
130, and leaves a run kept in a store to `hookagent resume`."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import run_cli
from .session_log import logged, session_hooks

PLUGIN = textwrap.dedent(
    '''
    import os
    import time
    from pathlib import Path

    import hookagent as h

    HERE = Path(__file__).parent

    @h.tool
    def slow(label: str) -> str:
        """Work until released."""
        (HERE / f"started-{label}").write_text("")
        # Well past `Running.finish`'s wait: a process that waited for this thread times
        # out there, while a slow exit on a loaded machine cannot look like a waited tool.
        deadline = time.monotonic() + 90
        while not (HERE / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        with (HERE / "effects.txt").open("a") as log:
            log.write(f"{label} {os.getpid()}\\n")
        return f"did {label}" if (HERE / "release").exists() else f"{label} never released"

    def configure(builder):
        builder.tools(slow)
    '''
)

SCRIPT = [
    {"tool_calls": [{"name": "slow", "args": {"label": "a"}, "id": "c1"}]},
    {"tool_calls": [{"name": "slow", "args": {"label": "b"}, "id": "c2"}]},
    {"text": "All done."},
]
CALL_A = "→ slow(label='a')"
CALL_B = "→ slow(label='b')"


class Running:
    """`hookagent ARGS` started in `cwd`, its stdout read line by line as it comes."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.cwd = cwd
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hookagent", *args],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "NO_COLOR": "1", "HOOKAGENT_WORKER": "cli-interrupt-test"},
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.lines):
            line = self._queue.get(timeout=max(0.01, deadline - time.monotonic()))
            if line is None:
                raise AssertionError(f"{text!r} never shown: {self.lines}")
            self.lines.append(line)

    def interrupt_in(self, label: str) -> tuple[int, str, str]:
        """Ctrl-C once call `label` has started; as `finish`."""
        while not (self.cwd / f"started-{label}").exists():
            time.sleep(0.01)
        self.proc.send_signal(signal.SIGINT)
        return self.finish()

    def finish(self, timeout: float = 30) -> tuple[int, str, str]:
        code = self.proc.wait(timeout=timeout)
        while (line := self._queue.get(timeout=5)) is not None:
            self.lines.append(line)
        assert self.proc.stderr is not None
        err = self.proc.stderr.read()
        self.close()
        return code, "\n".join(self.lines), err

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    yield tmp_path
    for running in STARTED.pop(tmp_path, []):
        running.close()


STARTED: dict[Path, list[Running]] = {}


def run(project: Path, *more: str) -> Running:
    args = ("run", "go", "--model", "scripted:turns.json", "--plugin", "plugin.py", *more)
    running = Running(project, *args)
    STARTED.setdefault(project, []).append(running)
    return running


def test_the_live_view_shows_a_call_while_its_sync_tool_runs(project: Path) -> None:
    running = run(project)
    running.wait_for(CALL_A)
    assert not any("←" in line for line in running.lines), "the call had not returned yet"
    (project / "release").write_text("")
    code, out, err = running.finish()
    assert code == 0, out + err
    assert "← did a" in out and "← did b" in out


def test_ctrl_c_stops_the_run_keeps_its_output_and_exits_130(project: Path) -> None:
    running = run(project)
    running.wait_for(CALL_A)
    running.proc.send_signal(signal.SIGINT)
    code, out, err = running.finish()
    assert code == 130, out + err
    assert out.index("step 1") < out.index(CALL_A) < out.index("← [error] Interrupted")
    assert "─ stopped · stop reason: user_requested" in out
    assert "interrupted: the run was stopped" in err
    assert not (project / "effects.txt").exists(), "the process waited for the tool's thread"


def test_ctrl_c_leaves_a_stored_run_to_resume_which_then_finishes_it(project: Path) -> None:
    running = run(project, "--session", "s", "--settings", session_hooks(project))
    running.wait_for(CALL_A)
    while not (project / "started-a").exists():
        time.sleep(0.01)
    running.proc.send_signal(signal.SIGINT)
    code, out, err = running.finish()
    assert code == 130, out + err
    assert CALL_A in out and "─ stopped · stop reason: user_requested" in out
    shown = json.loads(run_cli.hookagent(project, "sessions", "show", "s", "--json").stdout)
    (kept,) = shown["runs"]
    run_id = kept["id"]
    assert kept["status"] == "running", "not ended: resumable"
    assert f"interrupted: run {run_id} is kept; continue it with `hookagent resume {run_id}`" in err
    assert not (project / "effects.txt").exists()
    assert logged(project) == ["SessionStart startup", "SessionEnd prompt_input_exit"]

    (project / "release").write_text("")
    resumed = run_cli.hookagent(project, "resume", run_id)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "In doubt" in resumed.stdout and "← did b" in resumed.stdout
    assert "completed" in resumed.stdout
    assert [line.split()[0] for line in (project / "effects.txt").read_text().splitlines()] == ["b"]
    assert logged(project)[2:] == ["SessionStart resume", "SessionEnd other"]


def test_ctrl_c_with_json_prints_the_stopped_result_and_how_to_resume(project: Path) -> None:
    code, out, err = run(project, "--session", "s", "--json").interrupt_in("a")
    assert code == 130, out + err
    result = json.loads(out)
    assert (result["status"], result["stop_reason"]) == ("stopped", "user_requested")
    assert result["tool_calls"][0]["result"].startswith("Interrupted")
    run_id = result["run_id"]
    assert f"continue it with `hookagent resume {run_id}`" in err


def stopped_in_a(project: Path) -> str:
    """The id of a run kept in session `s` that Ctrl-C stopped while call a ran."""
    assert run(project, "--session", "s").interrupt_in("a")[0] == 130
    shown = json.loads(run_cli.hookagent(project, "sessions", "show", "s", "--json").stdout)
    return str(shown["runs"][0]["id"])


def resume(project: Path, run_id: str, *more: str) -> Running:
    resuming = Running(project, "resume", run_id, *more)
    STARTED[project].append(resuming)
    return resuming


def test_resume_shows_the_run_live_while_its_sync_tool_runs(project: Path) -> None:
    run_id = stopped_in_a(project)
    resuming = resume(project, run_id)
    resuming.wait_for(CALL_B)
    shown = "\n".join(resuming.lines)
    assert f"resumed run {run_id} · session s" in shown
    assert shown.index("step 1") < shown.index("← [error] In doubt") < shown.index("step 2")
    assert "← did b" not in shown, "the call had not returned yet"
    (project / "release").write_text("")
    code, out, err = resuming.finish()
    assert code == 0, out + err
    assert out.index(CALL_B) < out.index("← did b") < out.index("─ completed")


def test_ctrl_c_during_resume_keeps_its_output_and_the_run_for_the_next_resume(
    project: Path,
) -> None:
    run_id = stopped_in_a(project)
    resuming = resume(project, run_id)
    resuming.wait_for(CALL_B)
    code, out, err = resuming.interrupt_in("b")
    assert code == 130, out + err
    assert out.index("step 2") < out.index(CALL_B) < out.index("← [error] Interrupted")
    assert "─ stopped · stop reason: user_requested" in out
    assert f"interrupted: run {run_id} is kept; continue it with `hookagent resume {run_id}`" in err
    assert not (project / "effects.txt").exists(), "the process waited for the tool's thread"

    (project / "release").write_text("")
    resumed = run_cli.hookagent(project, "resume", run_id)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    out = resumed.stdout
    assert out.index("step 2") < out.index(CALL_B) < out.index("← [error] In doubt")
    assert "─ completed" in out


def test_ctrl_c_during_resume_with_json_prints_the_stopped_run(project: Path) -> None:
    run_id = stopped_in_a(project)
    code, out, err = resume(project, run_id, "--json").interrupt_in("b")
    assert code == 130, out + err
    result = json.loads(out)
    assert (result["run_id"], result["session"], result["questions"]) == (run_id, "s", [])
    assert (result["status"], result["stop_reason"]) == ("stopped", "user_requested")
    assert result["tool_calls"][-1]["result"].startswith("Interrupted")
    assert f"continue it with `hookagent resume {run_id}`" in err

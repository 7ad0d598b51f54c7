"""A `blocking=True` hook that outlives its timeout is abandoned: its thread never holds the
run or the process, and the decision record says it was left running."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import hookagent as h
from hookagent._threads import ABANDONED
from hookagent.testing import ScriptedModel, reply, tool_call

SLEEP = 5.0
TIMEOUT = 0.5


def agent_with(hook: object) -> h.Agent:
    @h.tool
    def noop() -> str:
        """Do nothing."""
        return "ok"

    model = ScriptedModel([tool_call("noop"), reply("done")])
    return (
        h.AgentBuilder()
        .model(model)
        .tools(noop)
        .on(h.BEFORE_TOOL, hook, name="slow", blocking=True, timeout=TIMEOUT)
        .build()
    )


def test_run_sync_returns_at_the_timeout_and_records_the_abandoned_thread() -> None:
    release = threading.Event()

    def slow(_event: h.ToolCallEvent) -> None:
        release.wait(SLEEP)

    agent = agent_with(slow)
    started = time.perf_counter()
    try:
        result = agent.run_sync("go")
        elapsed = time.perf_counter() - started
    finally:
        release.set()
    assert elapsed < SLEEP / 2, f"run_sync waited {elapsed:.1f} s for the abandoned thread"
    (decision,) = result.decisions.at(h.BEFORE_TOOL)
    assert decision.outcome == "block"
    assert decision.votes[0].error == f"timed out; {ABANDONED}"
    assert decision.reason is not None and ABANDONED in decision.reason
    assert result.tool_calls[0].blocked


SCRIPT = textwrap.dedent(
    f"""
    import asyncio, sys, time
    from pathlib import Path
    sys.path.insert(0, {str(Path(__file__).parent)!r})
    from test_abandoned_threads import agent_with

    def slow(_event):
        time.sleep({SLEEP})
        Path(sys.argv[1]).write_text("the hook ran to its end")

    result = asyncio.run(agent_with(slow).run("go"))
    print(result.decisions.at("before_tool")[0].votes[0].error)
    """
)


def test_a_process_using_asyncio_run_exits_without_waiting_for_the_thread(tmp_path: Path) -> None:
    finished = tmp_path / "finished"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(finished)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"timed out; {ABANDONED}"
    assert not finished.exists(), "the process waited for the abandoned hook to end"

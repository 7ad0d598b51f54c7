"""A hook's process: on Linux its exit is heard through a pidfd, with no waiting thread;
elsewhere it is asyncio's own child. Both behave the same to the hook's runner."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookagent.claude import _child
from hookagent.claude._child import spawn

from .test_runner import PAYLOAD, PY, SCRIPTS, group_is_gone, needs_proc, run, spec

needs_pidfd = pytest.mark.skipif(not _child._has_pidfd(), reason="no pidfd_open here")


@pytest.fixture(params=["pidfd", "asyncio"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test runs with the pidfd child (where there is one) and with asyncio's."""
    if request.param == "pidfd" and not _child._has_pidfd():
        pytest.skip("no pidfd_open here")
    if request.param == "asyncio":
        monkeypatch.setattr(_child, "_has_pidfd", lambda: False)
    yield request.param


def _watcher_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if "waitpid" in t.name]


@needs_pidfd
async def test_a_running_hook_holds_no_waiting_thread(tmp_path: Path) -> None:
    started = tmp_path / "started"
    running = asyncio.ensure_future(run(spec(f"touch {started}; sleep 0.3"), tmp_path))
    for _ in range(500):
        if started.exists():
            break
        await asyncio.sleep(0.01)
    assert started.exists()
    assert _watcher_threads() == []
    assert (await running).exit_code == 0


async def test_exit_codes_output_and_signals(tmp_path: Path, path: str) -> None:
    three = await run(spec("read -r line; echo out; echo err >&2; exit 3"), tmp_path)
    assert (three.exit_code, three.stdout, three.stderr) == (3, "out\n", "err\n")
    killed = await run(spec("kill -KILL $$"), tmp_path)
    assert killed.exit_code == -9


async def test_a_hook_that_never_reads_a_large_payload(tmp_path: Path, path: str) -> None:
    payload = {**PAYLOAD, "tool_input": {"content": "z" * 2_000_000}}
    outcome = await run(spec("echo done"), tmp_path, payload=payload)
    assert (outcome.exit_code, outcome.stdout) == (0, "done\n")


@needs_proc
async def test_a_timeout_stops_the_group(tmp_path: Path, path: str) -> None:
    pgid_file = tmp_path / "pgid"
    handler = spec(f"echo $$ > {pgid_file}; {PY} {SCRIPTS / 'sleeper.py'}")
    outcome = await run(handler, tmp_path, timeout=0.4, kill_grace=0.2)
    assert outcome.timed_out
    assert await group_is_gone(int(pgid_file.read_text()))


async def test_a_command_that_cannot_start_is_an_os_error(tmp_path: Path, path: str) -> None:
    with pytest.raises(FileNotFoundError):
        await spawn([str(tmp_path / "missing")], cwd=str(tmp_path), env={})


@needs_pidfd
@needs_proc
async def test_cancelled_while_connecting_the_process_is_killed(tmp_path: Path) -> None:
    """The caller is cancelled after the process started, before its pipes are connected:
    the process must not outlive it."""
    spawning = asyncio.ensure_future(
        spawn(["/bin/sh", "-c", "exec sleep 31.4159"], cwd=str(tmp_path), env={})
    )
    await asyncio.sleep(0)  # the process starts; connecting its pipes awaits the loop
    spawning.cancel()
    with pytest.raises(asyncio.CancelledError):
        await spawning
    for _ in range(200):
        if not _sleepers():
            break
        await asyncio.sleep(0.01)
    assert _sleepers() == []


def _sleepers() -> list[str]:
    """Live processes running `sleep 31.4159`."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if b"31.4159" in cmdline and state not in ("Z", "X"):
            found.append(proc.name)
    return found

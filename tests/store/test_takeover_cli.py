"""The lease fence end to end, through the real command, on each store processes can share.

`hookagent run --session` is frozen with SIGSTOP inside a slow tool until its lease has run
out; `hookagent worker --once` takes the run over and completes it; then the frozen process
is woken. Its tools' own log must show every effect once (the frozen call is left in doubt
by the worker, not run again), and the woken process must stop at its next barrier with an
error naming the run and the worker that took it, exiting non-zero. `resume --force` takes a
run over from a holder that is provably gone, and refuses otherwise.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import pytest

from . import pg_server

LEASE = 1.0

PLUGIN = textwrap.dedent(
    '''
    import os
    import signal
    import time
    from pathlib import Path

    LOG = Path(__file__).with_name("effects.log")

    def effect(name: str, arg: int) -> None:
        with LOG.open("a") as log:
            log.write(f"{name} {arg} {os.getpid()}\\n")
        if os.environ.get("DIE_AFTER") == f"{name} {arg}":
            os.kill(os.getpid(), signal.SIGKILL)

    def quick(n: int) -> str:
        """A quick step."""
        effect("quick", n)
        return f"quick {n} done"

    def build() -> str:
        """A slow build."""
        effect("build", 0)
        time.sleep(float(os.environ.get("BUILD_SECONDS") or 3))
        return "built"

    def configure(builder):
        if os.environ.get("BUILD_ON_LOOP"):  # a sync tool that holds the event loop
            import hookagent

            builder.tools(quick, hookagent.tool(blocking=False)(build))
        else:
            builder.tools(quick, build)
    '''
)

SCRIPT = [
    {"tool_calls": [{"name": "quick", "args": {"n": 1}, "id": "c1"}]},
    {"tool_calls": [{"name": "build", "args": {}, "id": "c2"}]},
    {"tool_calls": [{"name": "quick", "args": {"n": 2}, "id": "c3"}]},
    {"text": "Built."},
]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """Where the processes of a test keep their sessions: a SQLite file, or a fresh
    PostgreSQL schema."""
    if request.param == "sqlite":
        yield str(tmp_path / "sessions.db")
        return
    async with pg_server.fresh_schema(request.getfixturevalue("postgres_server")) as url:
        yield url


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "hookagent", *args]


def environment(**extra: str) -> Mapping[str, str]:
    return {**os.environ, "NO_COLOR": "1", "HOOKAGENT_LEASE_SECONDS": str(LEASE), **extra}


def hookagent(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*args),
        cwd=cwd,
        env=environment(**env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def spawn(cwd: Path, *args: str, **env: str) -> subprocess.Popen[str]:
    """`hookagent ARGS` in the background, its output piped."""
    return subprocess.Popen(
        command(*args),
        cwd=cwd,
        env=environment(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def start_run(cwd: Path, store: str, **env: str) -> subprocess.Popen[str]:
    """`hookagent run --session s` in the background, its tools from the plugin."""
    (cwd / "plugin.py").write_text(PLUGIN)
    (cwd / "turns.json").write_text(json.dumps(SCRIPT))
    args = ("run", "build it", "--model", "scripted:turns.json", "--plugin", "plugin.py")
    return spawn(cwd, *args, "--session", "s", "--store", store, **env)


def effects(cwd: Path) -> list[tuple[str, int, int]]:
    """(tool, argument, pid) of each effect, in order."""
    log = cwd / "effects.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [(name, int(arg), int(pid)) for name, arg, pid in (line.split() for line in lines)]


def wait_for_build(cwd: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while not any(name == "build" for name, _, _ in effects(cwd)):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the build never started"
        time.sleep(0.02)


def test_a_run_frozen_past_its_lease_is_taken_over_and_its_effects_happen_once(
    tmp_path: Path, store_url: str
) -> None:
    frozen = start_run(tmp_path, store_url)
    try:
        wait_for_build(tmp_path, frozen)
        os.kill(frozen.pid, signal.SIGSTOP)
        time.sleep(LEASE * 1.5)  # its lease runs out while it is frozen
        worker = hookagent(
            tmp_path, "worker", "--once", "--store", store_url, HOOKAGENT_WORKER="taker"
        )
        assert worker.returncode == 0, worker.stdout + worker.stderr
        assert "completed" in worker.stdout, worker.stdout
        os.kill(frozen.pid, signal.SIGCONT)
        out, err = frozen.communicate(timeout=60)
    finally:
        if frozen.poll() is None:
            os.kill(frozen.pid, signal.SIGCONT)
            frozen.kill()
            frozen.communicate()
    done = effects(tmp_path)
    assert [(name, arg) for name, arg, _ in done] == [("quick", 1), ("build", 0), ("quick", 2)]
    assert done[2][2] != frozen.pid  # quick(2) ran once, in the worker
    assert frozen.returncode == 2, out + err
    assert "lease lost" in err and "taker took the run over" in err, err
    assert "stopped without writing or running anything more" in err
    assert "Not run" not in out  # the build did run here: its end is what went unrecorded
    shown = hookagent(tmp_path, "sessions", "show", "s", "--store", store_url, "--json")
    detail = json.loads(shown.stdout)
    assert detail["session"]["status"] == "completed"
    assert err.split("error: run ")[1].startswith(detail["runs"][-1]["id"])
    results = {c["call_id"]: c["result"] for s in detail["steps"] for c in s["tool_calls"]}
    assert results["c2"].startswith("In doubt")  # the frozen build: not run again


def test_a_worker_frozen_past_its_lease_stops_and_exits_non_zero(tmp_path: Path) -> None:
    store = str(tmp_path / "sessions.db")
    dead = start_run(tmp_path, store, DIE_AFTER="quick 1")  # quick(1) is left in doubt
    dead.communicate(timeout=60)
    assert dead.returncode == -signal.SIGKILL
    time.sleep(LEASE * 1.5)
    frozen = spawn(tmp_path, "worker", "--once", "--store", store, HOOKAGENT_WORKER="sleeper")
    try:
        wait_for_build(tmp_path, frozen)
        os.kill(frozen.pid, signal.SIGSTOP)
        time.sleep(LEASE * 1.5)
        taker = hookagent(tmp_path, "worker", "--once", "--store", store, HOOKAGENT_WORKER="taker")
        assert taker.returncode == 0, taker.stdout + taker.stderr
        os.kill(frozen.pid, signal.SIGCONT)
        out, err = frozen.communicate(timeout=60)
    finally:
        if frozen.poll() is None:
            os.kill(frozen.pid, signal.SIGCONT)
            frozen.kill()
            frozen.communicate()
    assert frozen.returncode == 2, out + err
    assert "sleeper no longer holds it, taker took the run over" in err, err
    assert [(name, arg) for name, arg, _ in effects(tmp_path)] == [
        ("quick", 1),
        ("build", 0),
        ("quick", 2),
    ]


@pytest.mark.parametrize("on_loop", [False, True], ids=["on-a-thread", "holding-the-loop"])
def test_a_tool_longer_than_the_lease_keeps_the_run_while_a_worker_polls(
    tmp_path: Path, store_url: str, on_loop: bool
) -> None:
    """A sync tool running three leases, on a worker thread or holding the event loop, while
    `hookagent worker` polls the store: the run is never taken from its live process."""
    worker = spawn(
        tmp_path, "worker", "--store", store_url, "--poll", "0.1", HOOKAGENT_WORKER="poller"
    )
    try:
        run = start_run(tmp_path, store_url, **({"BUILD_ON_LOOP": "1"} if on_loop else {}))
        out, err = run.communicate(timeout=60)
    finally:
        worker.terminate()
        polled, _ = worker.communicate(timeout=30)
    assert run.returncode == 0, out + err
    assert [(name, arg, pid) for name, arg, pid in effects(tmp_path)] == [
        ("quick", 1, run.pid),
        ("build", 0, run.pid),
        ("quick", 2, run.pid),
    ]
    assert " run " not in polled, polled  # the worker took nothing over


def test_resume_force_takes_a_run_over_from_a_dead_process(tmp_path: Path) -> None:
    store = str(tmp_path / "sessions.db")
    dead = start_run(tmp_path, store, BUILD_SECONDS="60", HOOKAGENT_LEASE_SECONDS="60")
    wait_for_build(tmp_path, dead)
    dead.kill()
    dead.communicate()
    waiting = hookagent(tmp_path, "resume", "s", "--store", store)
    assert waiting.returncode == 2
    assert f":{dead.pid}:" in waiting.stderr and "lease for another" in waiting.stderr
    assert "its process is gone: `hookagent resume --force" in waiting.stderr
    forced = hookagent(tmp_path, "resume", "s", "--store", store, "--force", "--json")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert json.loads(forced.stdout)["status"] == "completed"
    assert [(name, arg) for name, arg, _ in effects(tmp_path)] == [
        ("quick", 1),
        ("build", 0),
        ("quick", 2),
    ]


def test_resume_force_is_refused_while_the_holder_lives(tmp_path: Path) -> None:
    store = str(tmp_path / "sessions.db")
    alive = start_run(tmp_path, store, BUILD_SECONDS="60", HOOKAGENT_LEASE_SECONDS="60")
    try:
        wait_for_build(tmp_path, alive)
        refused = hookagent(tmp_path, "resume", "s", "--store", store, "--force")
    finally:
        alive.kill()
        alive.communicate()
    assert refused.returncode == 2
    assert "lease for another" in refused.stderr and " s); --force refused" in refused.stderr
    assert f"its process {alive.pid} is alive on this host" in refused.stderr
    assert "renews its lease while it runs: stop it first" in refused.stderr
    assert [name for name, _, _ in effects(tmp_path)] == ["quick", "build"]

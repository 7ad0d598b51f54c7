"""Run Claude Code command handlers as Claude Code does (CLAUDE_HOOKS §5).

One handler is one process: `sh -c "<command>"` (or `bash -c`, or exec form with `args`), the
event as one compact JSON line on stdin with no trailing newline, the host environment plus
the `CLAUDE_*` variables, a new session so the whole process group can be stopped, and no
terminal. Both output streams are read concurrently and only their first bytes are kept in
memory (stdout: `output_cap`, room for a JSON answer; stderr: 64 KiB, more than the model is
ever shown); a longer stream is written whole, as it is read, to a file in the run's folder.
So a chatty hook can neither deadlock nor exhaust memory, and nothing it said is lost. A
timeout stops the group, SIGTERM then SIGKILL, and discards the output. What comes back is a
`ProcessOutcome`; reading it per event is `output.read_verdict`.

A hook counts as finished when its process has exited and its stdout and stderr are closed,
as with Node's `close` event: a background child still holding them keeps the hook running
until its timeout. Hooks that start daemons redirect their output, as in Claude Code.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from time import perf_counter
from typing import Any, Final, Required, TypedDict, Unpack

from hookagent.claude._capture import OutputCapture
from hookagent.claude._child import Child, spawn
from hookagent.claude._model import HandlerSpec, ProcessOutcome

__all__ = [
    "RunOptions",
    "command_line",
    "default_timeout",
    "hook_env",
    "run_all",
    "run_handler",
    "stdin_line",
    "timeout_for",
]

_COMMAND_TIMEOUT: Final = 600.0
_EVENT_TIMEOUTS: Final[Mapping[str, float]] = {
    "UserPromptSubmit": 30.0,
    "MessageDisplay": 10.0,
    "SessionEnd": 1.5,
}
_MODEL_TIMEOUTS: Final[Mapping[str, float]] = {"prompt": 30.0, "agent": 60.0}
_SESSION_END_MAX: Final = 60.0
_SESSION_END_ENV: Final = "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"
_PER_HOOK_VARS: Final = frozenset(
    {
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_ENV_FILE",
        "CLAUDE_PLUGIN_ROOT",
        "CLAUDE_PLUGIN_DATA",
        "CLAUDE_CODE_SESSION_ID",
    }
)
"""Set per hook; a value inherited from the host (hookagent itself run from a hook) would lie."""
STDERR_KEEP: Final = 65_536
"""Bytes of stderr kept in memory: the model is shown at most 10,000 characters of it."""
_POLL: Final = 0.01
_DRAIN_AFTER_KILL: Final = 1.0
"""How long the streams of a killed hook may take to close; only a process that left the
group (setsid) can hold them longer."""


class RunOptions(TypedDict, total=False):
    """The keywords `run_all` passes on to `run_handler`."""

    cwd: Required[str]
    project_dir: Required[str]
    env_file: str | None
    session_id: str | None
    kill_grace: float
    output_cap: int
    spill_dir: str | None


def default_timeout(event: str, kind: str = "command") -> float:
    """Claude Code's default for a handler of type `kind` on `event` (§5.3), in seconds:
    prompt 30, agent 60, command and http by event."""
    if kind in _MODEL_TIMEOUTS:
        return _MODEL_TIMEOUTS[kind]
    return _EVENT_TIMEOUTS.get(event, _COMMAND_TIMEOUT)


def timeout_for(spec: HandlerSpec, running: Sequence[HandlerSpec]) -> float:
    """`spec`'s limit in seconds when it runs alongside `running` (§5.3): its own `timeout`,
    else the event's default; SessionEnd handlers share one budget instead, 1.5 s raised to
    the largest configured timeout (at most 60 s), or set by
    `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS`."""
    if spec.event != "SessionEnd":
        return _configured(spec)
    budget = _session_end_budget(running)
    return min(spec.timeout, budget) if spec.timeout is not None else budget


def command_line(spec: HandlerSpec) -> list[str]:
    """The argv that runs a command handler: shell form unless `args` is given."""
    if spec.command is None:
        raise ValueError(f"{spec.label}: a {spec.type!r} handler has no command to run")
    if spec.args is not None:
        return [spec.command, *spec.args]
    if spec.shell == "bash":
        return ["bash", "-c", spec.command]
    if spec.shell == "powershell":
        return ["pwsh", "-NoProfile", "-NonInteractive", "-Command", spec.command]
    return ["/bin/sh", "-c", spec.command]


def hook_env(
    spec: HandlerSpec,
    *,
    project_dir: str,
    env_file: str | None = None,
    session_id: str | None = None,
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The host environment (or `base`) without `OTEL_*`, plus the variables of §5.2."""
    host = os.environ if base is None else base
    env = {
        key: value
        for key, value in host.items()
        if not key.startswith("OTEL_") and key not in _PER_HOOK_VARS
    }
    env["CLAUDE_PROJECT_DIR"] = project_dir
    env["CLAUDECODE"] = "1"
    if session_id is not None:
        env["CLAUDE_CODE_SESSION_ID"] = session_id
    if env_file is not None:
        env["CLAUDE_ENV_FILE"] = env_file
    if spec.source.plugin_root is not None:
        env["CLAUDE_PLUGIN_ROOT"] = spec.source.plugin_root
    return env


async def run_handler(
    spec: HandlerSpec,
    payload: Mapping[str, Any],
    *,
    cwd: str,
    project_dir: str,
    env_file: str | None = None,
    session_id: str | None = None,
    timeout: float | None = None,  # noqa: ASYNC109  # the hook's limit, enforced on the hook
    kill_grace: float = 2.0,
    output_cap: int = 10_000_000,
    spill_dir: str | None = None,
    before_stdin: Callable[[], object] | None = None,
    env: Mapping[str, str] | Mapping[bytes, bytes] | None = None,
) -> ProcessOutcome:
    """Run one command handler to completion, its timeout, or its start failure.

    Args:
        timeout: seconds; None means `spec.timeout`, else the event's default.
        env: the environment, when the caller built it already with `hook_env` (a run
            builds it once: rebuilding it from `os.environ` costs about 35 µs a call).
        before_stdin: called once the process is started and before it gets its payload:
            work the hook depends on (writing the transcript it will read) overlaps its
            start-up, and is done before it can know where to look.
        output_cap: bytes of stdout kept in memory (stderr: `STDERR_KEEP`). A longer
            stream is saved whole in `spill_dir` (`stdout_file`, `stderr_file`) as it is
            read; without `spill_dir` the rest is counted and dropped.
    """
    argv = command_line(spec)
    if env is None:
        env = hook_env(spec, project_dir=project_dir, env_file=env_file, session_id=session_id)
    limit = timeout if timeout is not None else _configured(spec)
    started = perf_counter()
    try:
        proc = await spawn(argv, cwd=cwd, env=env)
    except OSError as exc:
        error = f"hook command {spec.command!r} could not start: {exc.strerror or exc}"
        if exc.filename is not None:
            error += f" ({exc.filename})"
        return ProcessOutcome(exit_code=None, error=error, duration_ms=_ms_since(started))
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    if before_stdin is not None:
        before_stdin()
    stem = f"hook-{spec.event}"
    out = OutputCapture(output_cap, spill_dir, f"{stem}-stdout")
    err = OutputCapture(STDERR_KEEP, spill_dir, f"{stem}-stderr")
    tasks = [
        asyncio.ensure_future(_feed(proc.stdin, stdin_line(payload))),
        asyncio.ensure_future(out.drain(proc.stdout)),
        asyncio.ensure_future(err.drain(proc.stderr)),
    ]
    try:
        async with asyncio.timeout(limit):
            await asyncio.wait(tasks)
            exit_code = await proc.wait()
    except TimeoutError:
        await _abandon(proc, kill_grace, tasks, out, err)
        return ProcessOutcome(
            exit_code=None,
            timed_out=True,
            error=f"timed out after {limit:g} s",
            duration_ms=_ms_since(started),
        )
    except BaseException:  # cancelled from outside: the hook must not outlive its caller
        await asyncio.shield(_abandon(proc, 0.0, tasks, out, err))
        raise
    return ProcessOutcome(
        exit_code=exit_code,
        stdout=out.text(),
        stderr=err.text(),
        stdout_file=out.spill_path,
        stderr_file=err.spill_path,
        stdout_bytes=out.total,
        stderr_bytes=err.total,
        duration_ms=_ms_since(started),
    )


async def run_all(
    specs: Sequence[HandlerSpec],
    payload: Mapping[str, Any],
    *,
    timeout: float | None = None,  # noqa: ASYNC109  # the hooks' limit, enforced per hook
    **kw: Unpack[RunOptions],
) -> list[ProcessOutcome]:
    """Run every handler in parallel (§5.1); outcomes in the order of `specs`.

    Without an explicit `timeout`, each handler gets `timeout_for` (§5.3).
    """

    def limit(spec: HandlerSpec) -> float:
        return timeout if timeout is not None else timeout_for(spec, specs)

    runs = (run_handler(spec, payload, timeout=limit(spec), **kw) for spec in specs)
    return list(await asyncio.gather(*runs))


def _configured(spec: HandlerSpec) -> float:
    return spec.timeout if spec.timeout is not None else default_timeout(spec.event, spec.type)


def _session_end_budget(specs: Sequence[HandlerSpec]) -> float:
    raw = os.environ.get(_SESSION_END_ENV)
    if raw is not None:
        with contextlib.suppress(ValueError):
            if (millis := float(raw)) > 0:
                return millis / 1000
    configured = [s.timeout for s in specs if s.event == "SessionEnd" and s.timeout is not None]
    default = default_timeout("SessionEnd")
    return max(default, min(max(configured, default=default), _SESSION_END_MAX))


def stdin_line(payload: Mapping[str, Any]) -> bytes:
    """`JSON.stringify` of the payload: compact, raw UTF-8, lone surrogates escaped."""
    line = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return line.encode("utf-8", errors="backslashreplace")


async def _feed(stdin: asyncio.StreamWriter, data: bytes) -> None:
    """Write the payload and close stdin; a hook that never reads it is fine."""
    try:
        stdin.write(data)
        await stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        stdin.close()


async def _abandon(
    proc: Child,
    grace: float,
    tasks: Sequence[asyncio.Future[None]],
    *captures: OutputCapture,
) -> None:
    """Stop a hook whose output no longer matters, and wait until it is reaped."""
    for capture in captures:
        capture.discard()
    await _stop_group(proc, grace, tasks)
    await _settle(tasks, _DRAIN_AFTER_KILL)
    for capture in captures:
        await capture.remove_spill()


async def _stop_group(proc: Child, grace: float, tasks: Sequence[asyncio.Future[None]]) -> None:
    """SIGTERM the hook's process group, then SIGKILL it once the leader has exited and the
    pipes are closed (every member holding them is gone), or after `grace` seconds."""
    pgid = proc.pid  # start_new_session: the hook leads its own group
    _signal_group(pgid, signal.SIGTERM)
    await _until(lambda: proc.returncode is not None and all(t.done() for t in tasks), grace)
    _signal_group(pgid, signal.SIGKILL)  # stragglers that closed their pipes or ignore TERM
    await _until(lambda: proc.returncode is not None, _DRAIN_AFTER_KILL)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    # The group id stays reserved while any member (even a zombie) exists, so it cannot
    # name someone else's group here.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _until(done: Callable[[], bool], limit: float) -> bool:
    """Poll `done` until it holds or `limit` seconds pass. Polling, because on Python 3.12+
    `Process.wait()` also waits for the pipes, which a stopped reader may never close."""
    deadline = perf_counter() + limit
    while not done():
        if perf_counter() >= deadline:
            return False
        await asyncio.sleep(_POLL)
    return True


async def _settle(tasks: Sequence[asyncio.Future[None]], limit: float) -> None:
    """Let the stream tasks reach EOF; cancel what is still waiting after `limit` s."""
    _, pending = await asyncio.wait(tasks, timeout=limit)
    for future in pending:
        future.cancel()
    if pending:
        await asyncio.wait(pending)


def _ms_since(started: float) -> float:
    return (perf_counter() - started) * 1000

"""Run one shell command: its own process group, bounded output, nothing left behind.

The command starts in a new session, so it leads a process group that holds everything it
spawns. Both pipes are read concurrently into `HeadTail` buffers (the first and last few KiB
are kept, the middle is counted and dropped), so a command printing 100 MB costs a few
hundred KiB; a stream longer than `spill_after` bytes is also written whole, as it is read,
to a file in the run's folder. The call ends in one of two ways:

- The shell exits. Whatever it left in its group (`server &`, `sleep 100 &` holding the
  pipes open) gets SIGTERM, then SIGKILL once the pipes close or `kill_grace` passes: a
  command's processes never outlive its call. (Claude Code's `run_in_background` is not
  offered.)
- The timeout passes. The whole group gets SIGTERM, then SIGKILL once the shell has exited
  and the pipes are closed, or after `kill_grace`; the output read so far is kept.

Unsandboxed, a process that left the group (`setsid`) is out of reach; if it holds the
pipes, reading stops `DRAIN_LIMIT` seconds after the group is gone. In the sandbox the
command is `bwrap`, whose PID namespace dies with it, taking every process the command
started (`setsid` or not). Cancelling the call kills the group at once. (The long-lived
sandbox, `persistent.py`, reads its calls' output with the same `HeadTail` buffers.)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from time import perf_counter
from typing import IO, Final, final

from hookagent._record import record
from hookagent.spill._files import new_file

__all__ = [
    "DRAIN_LIMIT",
    "Captured",
    "Completed",
    "HeadTail",
    "exit_status",
    "run_command",
    "spill_target",
]

_CHUNK: Final = 65_536
_POLL: Final = 0.01
DRAIN_LIMIT: Final = 1.0


@record
class Captured:
    """What was kept of one output stream."""

    head: bytes
    tail: bytes
    """The last bytes; with `head`, the whole stream when `total` is their length."""
    total: int
    """Bytes the stream carried."""
    file: str | None = None
    """The file holding the whole stream, when it was longer than `spill_after`."""

    def window(self, limit: int, head: int, tail: int) -> str:
        """The stream as text, or when longer than `limit` its first `head` and last `tail`
        bytes around a marker counting what was left out and naming the file of the whole."""
        kept = self.head + self.tail
        if self.total <= limit and self.total == len(kept):
            return kept.decode("utf-8", errors="replace")
        first, last = self.head[:head], kept[len(kept) - tail :]
        dropped = self.total - len(first) - len(last)
        whole = f"; the whole output is in {self.file}" if self.file is not None else ""
        return (
            f"{first.decode('utf-8', errors='replace')}\n... [{dropped} bytes truncated{whole}]"
            f" ...\n{last.decode('utf-8', errors='replace')}"
        )


@record
class Completed:
    exit_code: int | None
    """The shell's exit status (128 + N when signal N killed it); None when timed out."""
    stdout: Captured
    stderr: Captured
    timed_out: bool = False
    duration: float = 0.0


async def run_command(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    limit: float,
    kill_grace: float,
    keep_head: int,
    keep_tail: int,
    spill: tuple[Path, str] | None = None,
    spill_after: int = 0,
    pass_fds: Sequence[int] = (),
) -> Completed:
    """Run `argv` to completion or `limit` seconds. Raises `OSError` if it cannot start.

    `spill` is a folder and a file name stem: a stream longer than `spill_after` bytes (at
    most `keep_head + keep_tail`) is saved whole there, as `<stem>-stdout-….txt` or
    `<stem>-stderr-….txt`. `pass_fds` are inherited by the command."""
    started = perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
        pass_fds=tuple(pass_fds),
    )
    assert proc.stdout is not None and proc.stderr is not None
    out = HeadTail(keep_head, keep_tail, spill_target(spill, "stdout"), spill_after)
    err = HeadTail(keep_head, keep_tail, spill_target(spill, "stderr"), spill_after)
    readers = (
        asyncio.ensure_future(out.drain(proc.stdout)),
        asyncio.ensure_future(err.drain(proc.stderr)),
    )
    timed_out = False
    try:
        try:
            async with asyncio.timeout(limit):
                await _exited(proc)
        except TimeoutError:
            timed_out = True
        await _stop_group(proc, readers, kill_grace)
    except BaseException:  # cancelled: the command must not outlive its caller
        await asyncio.shield(_stop_group(proc, readers, 0.0))
        raise
    return Completed(
        exit_code=None if timed_out else exit_status(proc.returncode),
        stdout=out.captured(),
        stderr=err.captured(),
        timed_out=timed_out,
        duration=perf_counter() - started,
    )


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Until the shell has exited, whoever still holds its pipes. (Python 3.12+'s
    `Process.wait()` also waits for the pipes, so it only serves as a fast path.)"""
    waiter = asyncio.ensure_future(proc.wait())
    try:
        while proc.returncode is None:
            await asyncio.wait((waiter,), timeout=_POLL)
    finally:
        waiter.cancel()


async def _stop_group(
    proc: asyncio.subprocess.Process, readers: Sequence[asyncio.Future[None]], grace: float
) -> None:
    """SIGTERM the command's group, SIGKILL it once the shell is gone and the pipes are
    closed (or after `grace`), then finish reading."""
    pgid = proc.pid  # start_new_session: the shell leads its own group
    deadline = perf_counter() + grace
    _signal_group(pgid, signal.SIGTERM)
    await _until(lambda: proc.returncode is not None, grace)
    await asyncio.wait(readers, timeout=max(deadline - perf_counter(), 0.0))
    _signal_group(pgid, signal.SIGKILL)  # members that ignore SIGTERM or closed their pipes
    await _until(lambda: proc.returncode is not None, DRAIN_LIMIT)
    _, pending = await asyncio.wait(readers, timeout=DRAIN_LIMIT)
    for reader in pending:  # held open by a process that left the group
        reader.cancel()
    if pending:
        await asyncio.wait(pending)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    # The group id stays reserved while any member (even a zombie) exists, so it cannot
    # name someone else's group here.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _until(done: Callable[[], bool], limit: float) -> None:
    deadline = perf_counter() + limit
    while not done():
        if perf_counter() >= deadline:
            return
        await asyncio.sleep(_POLL)


def spill_target(spill: tuple[Path, str] | None, stream: str) -> tuple[Path, str] | None:
    return None if spill is None else (spill[0], f"{spill[1]}-{stream}")


def exit_status(returncode: int | None) -> int | None:
    if returncode is None or returncode >= 0:
        return returncode
    return 128 - returncode  # killed by a signal, reported as a shell would


@final
class HeadTail:
    """A stream read to EOF, keeping its first `head_cap` and last `tail_cap` bytes; once
    longer than `spill_after`, all of it goes to a file in `spill`'s folder too."""

    __slots__ = (
        "_file",
        "_head",
        "_head_cap",
        "_spill",
        "_spill_after",
        "_tail",
        "_tail_cap",
        "_total",
        "path",
    )

    def __init__(
        self,
        head_cap: int,
        tail_cap: int,
        spill: tuple[Path, str] | None = None,
        spill_after: int = 0,
    ) -> None:
        self._head_cap, self._tail_cap = head_cap, tail_cap
        self._head, self._tail = bytearray(), bytearray()
        self._total = 0
        self._spill, self._spill_after = spill, min(spill_after, head_cap + tail_cap)
        self._file: IO[bytes] | None = None
        self.path: str | None = None

    async def drain(self, stream: asyncio.StreamReader) -> None:
        try:
            while chunk := await stream.read(_CHUNK):
                if self._spill is not None and self._total + len(chunk) > self._spill_after:
                    await self._save(chunk)
                self.feed(chunk)
        finally:
            if self._file is not None:
                file, self._file = self._file, None
                await asyncio.to_thread(file.close)

    async def _save(self, chunk: bytes) -> None:
        """Write `chunk`, after what came before it when it is the first: nothing was
        dropped yet, since `spill_after` fits in what is kept."""
        assert self._spill is not None
        try:
            file = self._file
            if file is None:
                file = await asyncio.to_thread(self._open, *self._spill)
            await asyncio.to_thread(file.write, chunk)
        except OSError:  # a full disk costs the file, never the command's output
            self._spill = None
            if self._file is not None:
                file, self._file = self._file, None
                await asyncio.to_thread(file.close)
            if self.path is not None:
                path, self.path = self.path, None
                await asyncio.to_thread(Path(path).unlink, missing_ok=True)

    def _open(self, folder: Path, stem: str) -> IO[bytes]:
        self.path, self._file = new_file(folder, stem)
        self._file.write(self._head + self._tail)
        return self._file

    def feed(self, chunk: bytes) -> None:
        self._total += len(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            if len(self._tail) > self._tail_cap:
                del self._tail[: len(self._tail) - self._tail_cap]

    def captured(self) -> Captured:
        return Captured(
            head=bytes(self._head), tail=bytes(self._tail), total=self._total, file=self.path
        )

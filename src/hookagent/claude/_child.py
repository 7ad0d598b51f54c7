"""A hook's process: spawned with its three pipes on the event loop, its exit heard through
a pidfd where Linux has one.

asyncio on Python 3.11 learns that a child exited from a thread started for each child (its
`ThreadedChildWatcher`), and starting that thread waits until it runs: on two busy cores it
cost more than the rest of a command hook's path. A pidfd becomes readable when the process
exits, so the loop hears it like any pipe, with no thread. Where there is no pidfd (not
Linux, a kernel before 5.3, a sandbox that forbids it) the child is asyncio's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from functools import cache
from typing import IO, Protocol, final

__all__ = ["Child", "spawn"]


class Child(Protocol):
    """What a hook's runner uses of its process: `asyncio.subprocess.Process`'s shape."""

    @property
    def pid(self) -> int: ...
    @property
    def returncode(self) -> int | None: ...
    @property
    def stdin(self) -> asyncio.StreamWriter | None: ...
    @property
    def stdout(self) -> asyncio.StreamReader | None: ...
    @property
    def stderr(self) -> asyncio.StreamReader | None: ...
    async def wait(self) -> int: ...


async def spawn(
    argv: Sequence[str], *, cwd: str, env: Mapping[str, str] | Mapping[bytes, bytes]
) -> Child:
    """Start `argv` in a new session with piped stdin, stdout and stderr; raises `OSError`
    when it cannot start."""
    if not _has_pidfd():
        return await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    popen = subprocess.Popen(  # noqa: ASYNC220  # asyncio's own spawn blocks as long
        argv,
        bufsize=0,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    child = _PidfdChild(popen)
    try:
        await child.connect()
    except BaseException:  # cancelled while connecting: the hook must not outlive its caller
        child.abandon()
        raise
    return child


@cache
def _has_pidfd() -> bool:
    """Whether pidfds can be opened and waited on (Linux 5.4+, unless a sandbox forbids it):
    waiting on this process's own pidfd says "not a child" where they can."""
    try:
        pidfd = os.pidfd_open(os.getpid())
    except (AttributeError, OSError):
        return False
    try:
        os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOHANG)
    except ChildProcessError:
        return True
    except (AttributeError, OSError):
        return False
    finally:
        os.close(pidfd)
    return False


@final
class _PidfdChild:
    """A `subprocess.Popen` whose pipes are asyncio streams and whose exit the loop reads
    from its pidfd."""

    __slots__ = ("_exited", "_loop", "_popen", "_transports", "pid", "stderr", "stdin", "stdout")

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        self.pid = popen.pid
        self._loop = asyncio.get_running_loop()
        self._exited: asyncio.Future[int] = self._loop.create_future()
        self.stdin: asyncio.StreamWriter | None = None
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None
        self._transports: list[asyncio.BaseTransport] = []
        pidfd = os.pidfd_open(popen.pid)
        self._loop.add_reader(pidfd, self._reap, pidfd)

    @property
    def returncode(self) -> int | None:
        return self._popen.returncode

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)

    async def connect(self) -> None:
        loop, popen = self._loop, self._popen
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        self.stdout = await self._reader(popen.stdout)
        self.stderr = await self._reader(popen.stderr)
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, popen.stdin
        )
        self._transports.append(transport)
        self.stdin = asyncio.StreamWriter(transport, protocol, None, loop)

    async def _reader(self, pipe: IO[bytes]) -> asyncio.StreamReader:
        reader = asyncio.StreamReader(loop=self._loop)
        transport, _ = await self._loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        self._transports.append(transport)
        return reader

    def abandon(self) -> None:
        """Kill the process's group and close its pipes; the loop still reaps it."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._popen.pid, signal.SIGKILL)
        for transport in self._transports:
            transport.close()
        for pipe in (self._popen.stdin, self._popen.stdout, self._popen.stderr):
            if pipe is not None:
                pipe.close()

    def _reap(self, pidfd: int) -> None:
        """The process exited: collect its status (what `Popen.returncode` reports) through
        the pidfd itself, so no other process that took its pid can be waited for."""
        try:
            info = os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOHANG)
        except ChildProcessError:  # reaped by someone else's waitpid(-1): status unknown
            code = 255
        else:
            if info is None:  # not exited after all: keep listening
                return
            exited = info.si_code == os.CLD_EXITED
            code = info.si_status if exited else -info.si_status
        self._loop.remove_reader(pidfd)
        os.close(pidfd)
        self._popen.returncode = code
        if not self._exited.done():
            self._exited.set_result(code)

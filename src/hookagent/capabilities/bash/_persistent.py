"""A long-lived sandbox per Bash tool and profile, so namespaces are made once, not per call.

`CommandServer` starts `bwrap` once with the profile and the seccomp filter, running
`command_server.py`; each call then sends its command, environment and output pipes over a
socket pair, and reads the exit status once the server has killed every process the call
left and reset /tmp, /dev and the System V IPC objects. So each call keeps the one-shot
sandbox's guarantees: the same mounts, namespaces, filter and scrubbed environment, its own
stdout and stderr (read, capped and spilled as `process.py` does), no process outliving
it, and a /tmp that starts empty. A timeout or a cancelled call has the server kill the
call's processes; a server that does not answer in `STOP_LIMIT` seconds is killed with its
whole sandbox.

`server_pool.Servers` hands a tool's calls to its servers.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import socket
import struct
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from time import perf_counter
from typing import Final, final

from hookagent.capabilities.bash import _seccomp as seccomp
from hookagent.capabilities.bash._process import (
    DRAIN_LIMIT,
    Completed,
    HeadTail,
    exit_status,
    spill_target,
)
from hookagent.capabilities.bash._sandbox import SandboxProfile, wrap

__all__ = ["STOP_LIMIT", "CommandServer", "ServerLost"]

log = logging.getLogger("hookagent.bash")

START_LIMIT: Final = 15.0
STOP_LIMIT: Final = 5.0
"""Seconds a server has to answer a kill before its sandbox is killed."""
_HEADER: Final = struct.Struct("!I")
_MAX_REPLY: Final = 65_536
_CLOSE_GRACE: Final = 1.0


class ServerLost(Exception):
    """The server stopped while a call was running; its processes died with its sandbox."""


@functools.cache
def _source() -> str:
    return Path(__file__).with_name("_command_server.py").read_text(encoding="utf-8")


def fingerprint(profile: SandboxProfile) -> tuple[object, ...]:
    """What the sandbox's mounts were built from: each writable and deny path's identity,
    or whether it is missing (a deny path that appears later would not be hidden)."""
    return tuple(_identity(path) for path in (*profile.writable, *profile.deny))


def _identity(path: str) -> tuple[object, ...]:
    try:
        info = os.stat(path)
    except OSError:
        return (path, os.path.lexists(path))
    return (path, info.st_dev, info.st_ino, info.st_mode >> 12)


@final
class CommandServer:
    """One sandbox running the command server; one call at a time."""

    def __init__(
        self, proc: subprocess.Popen[bytes], channel: socket.socket, built: tuple[object, ...]
    ) -> None:
        self._proc = proc
        self._channel = channel
        self._built = built
        self._buffer = b""
        self.busy = False
        self.closed = False
        self._reading = False

    @classmethod
    async def start(cls, bwrap: str, profile: SandboxProfile, cwd: str) -> CommandServer:
        """A server ready for calls; `OSError` saying why when it cannot start."""
        server = cls(*_spawn(bwrap, profile, cwd))
        try:
            async with asyncio.timeout(START_LIMIT):
                ready = await server._reply()
        except BaseException:
            server.close()
            raise
        if ready is None or "ready" not in ready:
            server.close()
            why = "it exited" if ready is None else str(ready.get("error"))
            raise OSError(f"the sandbox's command server did not start: {why}")
        return server

    @property
    def pid(self) -> int:
        """The process id of its `bwrap`, outside the sandbox."""
        return self._proc.pid

    def current(self, profile: SandboxProfile) -> bool:
        """Alive, and its sandbox built from the paths as they are now."""
        return not self.closed and self._proc.poll() is None and fingerprint(profile) == self._built

    async def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str,
        env_file: tuple[str, bytes] | None,
        limit: float,
        keep_head: int,
        keep_tail: int,
        spill: tuple[Path, str] | None,
        spill_after: int,
    ) -> Completed | None:
        """Run `argv` inside; None when nothing ran (the sandbox was out of date, or gone
        before it read the request)."""
        started = perf_counter()
        request: dict[str, object] = {"argv": list(argv), "env": dict(env), "cwd": cwd}
        if env_file is not None:
            request["env_file"] = [env_file[0], env_file[1].decode("utf-8", "surrogateescape")]
        out = HeadTail(keep_head, keep_tail, spill_target(spill, "stdout"), spill_after)
        err = HeadTail(keep_head, keep_tail, spill_target(spill, "stderr"), spill_after)
        self.busy = True
        try:
            try:
                readers = await self._send(request, (out, err))
            except OSError:
                return None  # gone before the request was read: nothing ran
            timed_out = False
            try:
                try:
                    async with asyncio.timeout(limit):
                        reply = await self._reply()
                except TimeoutError:
                    timed_out = True
                    reply = await self._stop()
            except BaseException:  # cancelled: the call's processes must not outlive it
                try:
                    await asyncio.shield(self._stop())
                    await asyncio.shield(_finish(readers))
                except BaseException:  # cancelled again: no waiting for the server
                    self.close()
                    raise
                raise
            if reply is None or "exit" not in reply or "broken" in reply:
                if reply is not None and "broken" in reply:
                    log.info("Bash sandbox started afresh: %s", reply["broken"])
                self.close()
            await _finish(readers)
        finally:
            self.busy = False
            self._release()
        if timed_out:
            reply = {}
        elif reply is None or "error" in reply:
            why = "it exited" if reply is None else str(reply["error"])
            raise ServerLost(
                f"the sandbox's command server stopped during the call ({why}), and every "
                "process of the call with it"
            )
        if "stale" in reply:
            return None  # closed above: the next call starts a sandbox of the paths as now
        code = reply.get("exit")
        return Completed(
            exit_code=None if timed_out else exit_status(code if isinstance(code, int) else 1),
            stdout=out.captured(),
            stderr=err.captured(),
            timed_out=timed_out,
            duration=perf_counter() - started,
        )

    async def _send(
        self, request: dict[str, object], sinks: tuple[HeadTail, HeadTail]
    ) -> list[asyncio.Future[None]]:
        """The request sent with the write ends of two new pipes; readers of the read ends."""
        body = json.dumps(request).encode()
        message = _HEADER.pack(len(body)) + body
        pipes = [os.pipe(), os.pipe()]
        try:  # one message when it fits, as it mostly does: one wake-up of the server
            sent = socket.send_fds(self._channel, [message], [pipes[0][1], pipes[1][1]])
            await asyncio.get_running_loop().sock_sendall(self._channel, message[sent:])
        except BaseException:
            for read, _ in pipes:
                os.close(read)
            self.close()
            raise
        finally:
            for _, write in pipes:
                os.close(write)
        return [
            asyncio.ensure_future(_drain(read, sink))
            for (read, _), sink in zip(pipes, sinks, strict=True)
        ]

    async def _stop(self) -> dict[str, object] | None:
        """Kill the running call's processes; its reply, or None when the server had to be
        killed (its sandbox, and every process in it, with it)."""
        if self.closed:
            return None
        body = json.dumps({"op": "kill"}).encode()
        try:
            await asyncio.get_running_loop().sock_sendall(
                self._channel, _HEADER.pack(len(body)) + body
            )
            async with asyncio.timeout(STOP_LIMIT):
                reply = await self._reply()
        except (OSError, TimeoutError):
            reply = None
        if reply is None:
            self.close()
        return reply

    async def _reply(self) -> dict[str, object] | None:
        """The server's next line as JSON; None at end of file or for nonsense."""
        loop = asyncio.get_running_loop()
        while b"\n" not in self._buffer:
            if self.closed or len(self._buffer) > _MAX_REPLY:
                return None
            self._reading = True
            try:
                chunk = await loop.sock_recv(self._channel, 4096)
            except OSError:
                return None
            finally:
                self._reading = False
                self._release()
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError:
            return None
        return reply if isinstance(reply, dict) else None

    def close(self) -> None:
        """Stop the server, or after `_CLOSE_GRACE` seconds kill its sandbox (the PID
        namespace takes every process in it); idempotent. The socket is closed here unless
        a call still reads it, which closes it when done."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):  # the server sweeps, exits, and bwrap with it
                self._channel.shutdown(socket.SHUT_RDWR)
            try:
                self._proc.wait(_CLOSE_GRACE)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._release()

    def _release(self) -> None:
        """Close the socket of a closed server once no call or read uses it (closing it
        under a pending read could unregister whatever later gets its number)."""
        if self.closed and not self.busy and not self._reading:
            self._channel.close()


def _spawn(
    bwrap: str, profile: SandboxProfile, cwd: str
) -> tuple[subprocess.Popen[bytes], socket.socket, tuple[object, ...]]:
    """`bwrap` started on the server, its end of the socket pair, and what its mounts were
    built from. Started in the caller's thread, not a worker's: `--die-with-parent` ties the
    sandbox to the thread that started it."""
    built = fingerprint(profile)  # before the command line reads the paths
    ours, theirs = socket.socketpair()
    fds = [theirs.fileno()]
    try:
        filter_program = seccomp.program()
        if filter_program is not None:
            fds.append(seccomp.program_fd(filter_program))
        python = os.path.realpath(sys.executable)
        command = [python, "-I", "-S", "-", str(theirs.fileno())]
        argv = wrap(bwrap, command, profile, cwd, seccomp_fd=fds[1] if len(fds) > 1 else None)
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=fds,
            start_new_session=True,
            env={},
        )
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
        for fd in fds[1:]:
            os.close(fd)
    ours.setblocking(False)
    assert proc.stdin is not None
    with contextlib.suppress(OSError), proc.stdin:  # an exit is seen when no reply comes
        proc.stdin.write(_source().encode())  # fits in the pipe: no wait
    return proc, ours, built


async def _drain(fd: int, sink: HeadTail) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    pipe = os.fdopen(fd, "rb", buffering=0)
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
    except BaseException:
        pipe.close()
        raise
    try:
        await sink.drain(reader)
    finally:
        transport.close()


async def _finish(readers: Sequence[asyncio.Future[None]]) -> None:
    """Read to the end: every writer is gone once the server replied (or died)."""
    _, pending = await asyncio.wait(readers, timeout=DRAIN_LIMIT)
    for reader in pending:
        reader.cancel()
    if pending:
        await asyncio.wait(pending)

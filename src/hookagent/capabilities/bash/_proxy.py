"""The network proxy of one sandboxed Bash call with a domain allowlist.

The sandbox keeps a network namespace of its own (loopback only); `forward.py` runs inside
it, listens on `127.0.0.1:PROXY_PORT` and hands every connection the command opens there,
as a descriptor, over one end of a socket pair to this proxy, which runs in the call's event
loop. The proxy reads the request (`proxy_http.py`), checks its host against the call's
`DomainRules`, and either answers 403 naming the host and the reason, or resolves the host
outside the sandbox, connects, and carries bytes both ways.

Why one proxy per call, started with the call and closed when it ends, rather than one
listening per run: nothing listens on the host (no other process can borrow the proxy), the
socket pair tells exactly which call each connection belongs to (each refusal is recorded
against its call), and nothing of it can outlive the call: when the command ends its
sandbox is gone, and `aclose` cancels whatever connection is still being carried.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import Final, final

from hookagent.capabilities.bash import _forward as forward
from hookagent.capabilities.bash._domains import DomainRules
from hookagent.capabilities.bash._proxy_http import ESTABLISHED, Request, answer, parse_request

__all__ = ["PROXY_PORT", "CallProxy", "Resolver", "forwarded", "interpreter"]

PROXY_PORT: Final = 3128
"""Where the proxy is inside the sandbox (its own loopback, so no port is ever taken)."""
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""`(host, port)` → the addresses to try, in order; raises `OSError` when there are none."""

_HEAD_LIMIT: Final = 65_536
_HEAD_TIMEOUT: Final = 30.0
_CONNECT_TIMEOUT: Final = 30.0
_CHUNK: Final = 65_536
_RECORDED: Final = 100
"""Connections listed per call and kind; more are counted in `omitted`."""


def interpreter() -> str | None:
    """The Python that runs the forwarder: the real file (a venv's link may sit under
    /tmp, which the sandbox hides), or None when there is none outside /tmp."""
    python = os.path.realpath(sys.executable) if sys.executable else ""
    return None if not python or python.startswith("/tmp/") else python


def forwarded(python: str, command: Sequence[str], fd: int) -> list[str]:
    """`command` started by the forwarder, which gets the socket pair's end `fd`."""
    return [python, "-I", "-S", "-c", _source(), str(fd), str(PROXY_PORT), *command]


@cache
def _source() -> str:
    return Path(forward.__file__).read_text(encoding="utf-8")


async def system_resolver(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


@final
class CallProxy:
    """The proxy of one call; `inside` is the end of the socket pair the sandbox gets."""

    def __init__(self, rules: DomainRules, *, call_id: str, resolver: Resolver | None) -> None:
        self.rules = rules
        self.call_id = call_id
        self._resolve = resolver or system_resolver
        self._outside, self.inside = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._outside.setblocking(False)
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.allowed: list[dict[str, object]] = []
        self.refused: list[dict[str, object]] = []
        self.omitted = 0

    async def __aenter__(self) -> CallProxy:
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._outside.fileno(), self._receive)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop taking connections, end those still open, close both ends of the pair."""
        if self._loop is not None and self._outside.fileno() >= 0:
            self._loop.remove_reader(self._outside.fileno())
        self._outside.close()
        self.inside.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def report(self) -> dict[str, object]:
        """The call's connections, for the result's `data["sandbox"]`."""
        data: dict[str, object] = {"allowed": self.allowed, "refused": self.refused}
        if self.omitted:
            data["omitted"] = self.omitted
        return data

    def _receive(self) -> None:
        try:
            _, fds, _, _ = socket.recv_fds(self._outside, 1, 4)
        except BlockingIOError:
            return
        except OSError:
            fds = []
        if not fds:  # the forwarder is gone (or sent nothing usable)
            assert self._loop is not None
            self._loop.remove_reader(self._outside.fileno())
            return
        for fd in fds:
            os.set_inheritable(fd, False)
            task = asyncio.ensure_future(self._serve(socket.socket(fileno=fd)))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _serve(self, client: socket.socket) -> None:
        try:
            reader, writer = await asyncio.open_connection(sock=client, limit=_HEAD_LIMIT)
        except OSError:
            client.close()
            return
        try:
            async with asyncio.timeout(_HEAD_TIMEOUT):
                head = await reader.readuntil(b"\r\n\r\n")
            await self._answer(parse_request(head), reader, writer)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _answer(
        self, request: Request | str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if isinstance(request, str):
            self._note(self.refused, {"host": None, "port": None, "reason": request})
            writer.write(answer(400, f"hookagent sandbox proxy: {request}\n"))
            return
        where = f"{request.host}:{request.port}"
        refusal = self.rules.refusal(request.host, request.port)
        if refusal is not None:
            entry = {"host": request.host, "port": request.port, "reason": refusal}
            self._note(self.refused, entry)
            writer.write(answer(403, f"hookagent sandbox: {where} refused: {refusal}\n"))
            return
        entry = {"host": request.host, "port": request.port, "method": request.method}
        self._note(self.allowed, entry)
        try:
            up_reader, up_writer = await self._connect(request.host, request.port)
        except (OSError, TimeoutError) as exc:
            entry["error"] = f"cannot connect: {exc or type(exc).__name__}"
            writer.write(answer(502, f"hookagent sandbox: {where}: {entry['error']}\n"))
            return
        try:
            writer.write(ESTABLISHED if request.method == "CONNECT" else b"")
            up_writer.write(request.head)
            await asyncio.gather(_carry(reader, up_writer), _carry(up_reader, writer))
        finally:
            up_writer.close()

    async def _connect(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        error: OSError | TimeoutError = OSError(f"{host} has no address")
        async with asyncio.timeout(_CONNECT_TIMEOUT):
            addresses = await self._resolve(host, port)
        for address in addresses:
            try:
                async with asyncio.timeout(_CONNECT_TIMEOUT):
                    return await asyncio.open_connection(address, port)
            except (OSError, TimeoutError) as exc:
                error = exc
        raise error

    def _note(self, into: list[dict[str, object]], entry: dict[str, object]) -> None:
        if len(into) < _RECORDED:
            into.append(entry)
        else:
            self.omitted += 1


async def _carry(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    """Bytes from `source` to `target` until `source` ends, then end `target`'s side."""
    with contextlib.suppress(OSError):
        while data := await source.read(_CHUNK):
            target.write(data)
            await target.drain()
        if target.can_write_eof():
            target.write_eof()

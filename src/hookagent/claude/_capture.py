"""One output stream of a command hook, or an HTTP hook's response body, read to its end
with bounded memory.

The first bytes stay in memory (what the verdict is read from); once the stream is longer, all
of it goes to a file in the run's folder as it is read, so nothing the hook said is lost and
nothing it says can exhaust memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterable, AsyncIterator
from pathlib import Path
from typing import IO, Final, final

from hookagent.spill._files import new_file

__all__ = ["OutputCapture"]

CHUNK: Final = 65_536
"""Bytes read from a pipe at a time."""


@final
class OutputCapture:
    """One output stream, read to EOF: its first `keep` bytes in memory, and once it is
    longer, all of it in a file in `spill_dir`, written as it is read."""

    __slots__ = (
        "_dropping",
        "_file",
        "_head",
        "_keep",
        "_spill_dir",
        "_stem",
        "spill_path",
        "total",
    )

    def __init__(self, keep: int, spill_dir: str | None, stem: str) -> None:
        self._keep = keep
        self._spill_dir = spill_dir
        self._stem = stem
        self._head = bytearray()
        self._dropping = False
        self._file: IO[bytes] | None = None
        self.spill_path: str | None = None
        self.total = 0
        """Bytes the stream carried."""

    async def drain(self, stream: asyncio.StreamReader) -> None:
        await self.consume(_chunks(stream))

    async def consume(self, chunks: AsyncIterable[bytes]) -> None:
        """Read `chunks` to their end (an HTTP hook's response body, a pipe)."""
        try:
            async for chunk in chunks:
                if not self._dropping:
                    await self._take(chunk)
        finally:
            if self._file is not None:
                file, self._file = self._file, None
                await asyncio.to_thread(file.close)

    async def _take(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._keep - len(self._head)
        if room > 0:
            self._head += chunk[:room]
        if len(chunk) > room and self._spill_dir is not None:
            await self._spill(chunk[max(room, 0) :])

    async def _spill(self, rest: bytes) -> None:
        """Save the whole stream: what is kept, then everything after it."""
        try:
            if self._file is None:
                self._file = await asyncio.to_thread(self._open_spill)
                await asyncio.to_thread(self._file.write, bytes(self._head))
            await asyncio.to_thread(self._file.write, rest)
        except OSError:  # a full disk costs the spill file, never the hook's result
            self._spill_dir = None
            if self._file is not None:
                file, self._file = self._file, None
                await asyncio.to_thread(file.close)
            await self.remove_spill()

    def _open_spill(self) -> IO[bytes]:
        assert self._spill_dir is not None
        self.spill_path, file = new_file(Path(self._spill_dir), self._stem)
        return file

    def discard(self) -> None:
        """Keep reading (so the pipe never fills) but keep nothing more."""
        self._dropping = True
        self._head.clear()

    async def remove_spill(self) -> None:
        if self.spill_path is not None:
            path, self.spill_path = self.spill_path, None
            await asyncio.to_thread(_unlink_quietly, path)

    def text(self) -> str:
        return self._head.decode("utf-8", errors="replace")


async def _chunks(stream: asyncio.StreamReader) -> AsyncIterator[bytes]:
    while chunk := await stream.read(CHUNK):
        yield chunk


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)

"""The hash chain on disk: canonical JSON, sealing a record, appending under a lock.

A record's `hash` is the SHA-256 of its canonical JSON (sorted keys, no spaces, ASCII)
without the `hash` field; its `prev` is the previous record's `hash` (64 zeros for the first
line of a file), so every record seals the one before it. `seq` counts the file's records
from 0.

The line written is the canonical JSON with `"hash"` appended as the last key, so the last
67 bytes of a file are its head hash, `"}` and the newline: a writer confirms that the file
still ends where it left it with one small read, and reads the whole last line only when
another writer (another process, another `AuditTrail` on the same file) appended since.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
from typing import Any, Final, final

from hookagent._errors import RunError

__all__ = ["ZERO_HASH", "AuditError", "ChainWriter", "canonical", "digest", "seal"]

ZERO_HASH: Final = "0" * 64
"""The `prev` of a file's first record."""

_TAIL: Final = 64 + 3  # the hash, then `"}` and the newline
_CHUNK: Final = 8192


class AuditError(RunError):
    """The audit file cannot be appended to: unwritable, or its last line is not a record."""


def canonical(record: dict[str, Any]) -> str:
    """Sorted keys, no spaces, ASCII only (so any string round-trips, lone surrogates too)."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=False)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def seal(body: dict[str, Any]) -> tuple[str, bytes]:
    """(hash, line) for a record body that already has its `seq` and `prev`."""
    text = canonical(body)
    sealed = digest(text)
    return sealed, f'{text[:-1]},"hash":"{sealed}"}}\n'.encode("ascii")


@final
class ChainWriter:
    """Appends records to one file, one exclusive `flock` per append.

    Safe across processes (the lock) and threads (a mutex: `flock` does not exclude two
    threads sharing one descriptor). The descriptor is reopened after a fork, and when the
    path no longer names the file it was opened on (rotated or deleted).
    """

    __slots__ = ("_end", "_fd", "_fsync", "_head", "_ino", "_mutex", "_pid", "_seq", "path")

    def __init__(self, path: str, *, fsync: bool = False) -> None:
        self.path = path
        self._fsync = fsync
        self._mutex = threading.Lock()
        self._fd = -1
        self._pid = 0
        self._ino: tuple[int, int] = (0, 0)
        self._end = -1
        """The file's size when this writer last saw its tail (-1: not seen yet)."""
        self._seq = -1
        self._head = ZERO_HASH

    @property
    def head(self) -> str:
        """The hash of the last record this writer wrote or read (64 zeros before any)."""
        return self._head

    def append(self, body: dict[str, Any]) -> str:
        """Give `body` the next `seq` and `prev`, seal it and append it; its hash.

        `body` must be plain JSON data (str keys; str, int, float, bool, None, lists, dicts):
        the hash is over its canonical JSON, which `verify` recomputes from the parsed line.
        """
        with self._mutex:
            fd = self._descriptor()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    return self._append_locked(fd, body)
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError as exc:
                self._end = -1
                raise AuditError(f"cannot append to the audit file {self.path}: {exc}") from exc

    def _append_locked(self, fd: int, body: dict[str, Any]) -> str:
        size = os.fstat(fd).st_size
        if size != self._end or (size and not self._tail_is_ours(fd, size)):
            self._seq, self._head = _read_tail(fd, size, self.path)
        body["seq"] = self._seq + 1
        body["prev"] = self._head
        sealed, line = seal(body)
        self._end = -1  # unknown until the whole line is down
        view = memoryview(line)
        while view:
            view = view[os.write(fd, view) :]
        if self._fsync:
            os.fsync(fd)
        self._seq, self._head, self._end = self._seq + 1, sealed, size + len(line)
        return sealed

    def close(self) -> None:
        with self._mutex:
            if self._fd >= 0:
                os.close(self._fd)
            self._fd, self._end = -1, -1

    def __del__(self, _getpid: Any = os.getpid, _close: Any = os.close) -> None:
        # os's functions bound here: at interpreter exit the module may be torn down first
        if self._fd >= 0 and self._pid == _getpid():
            try:  # noqa: SIM105  # contextlib may be gone too
                _close(self._fd)
            except OSError:
                pass

    def _descriptor(self) -> int:
        """The open descriptor, reopened after a fork or when the path moved on."""
        fd = self._fd
        if fd >= 0:
            if self._pid == os.getpid():
                try:
                    st = os.stat(self.path)
                except FileNotFoundError:
                    st = None
                if st is not None and (st.st_dev, st.st_ino) == self._ino:
                    return fd
            os.close(fd)  # after a fork: the child's copy only
            self._fd = -1
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise AuditError(f"cannot open the audit file {self.path}: {exc.strerror}") from exc
        st = os.fstat(fd)
        self._fd, self._pid, self._ino, self._end = fd, os.getpid(), (st.st_dev, st.st_ino), -1
        return fd

    def _tail_is_ours(self, fd: int, size: int) -> bool:
        """The file still ends in the line this writer last wrote or read."""
        if size < _TAIL:
            return False
        return os.pread(fd, _TAIL, size - _TAIL) == f'{self._head}"}}\n'.encode("ascii")


def _read_tail(fd: int, size: int, path: str) -> tuple[int, str]:
    """(seq, hash) of the file's last record, reading back from the end only as far as the
    line before it; (-1, zeros) for an empty file."""
    if size == 0:
        return -1, ZERO_HASH
    end = size
    buffer = b""
    while True:
        start = max(0, end - _CHUNK)
        buffer = os.pread(fd, end - start, start) + buffer
        end = start
        cut = buffer.rfind(b"\n", 0, len(buffer) - 1)
        if cut >= 0 or start == 0:
            break
    if not buffer.endswith(b"\n"):
        raise AuditError(
            f"the audit file {path} ends in a cut-off line (a writer died mid-line?); "
            "run `hookagent audit verify` on it and start a new file"
        )
    line = buffer[cut + 1 :]
    try:
        record = json.loads(line)
        seq, sealed = record["seq"], record["hash"]
    except (ValueError, TypeError, KeyError) as exc:
        raise AuditError(f"the last line of {path} is not an audit record") from exc
    if not isinstance(seq, int) or not isinstance(sealed, str) or len(sealed) != 64:
        raise AuditError(f"the last line of {path} is not an audit record")
    return seq, sealed

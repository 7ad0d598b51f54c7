"""`verify`: read an audit file once, front to back, and name the first line that breaks the
chain.

Each line must be a whole JSON record ending in a newline, whose `hash` matches its content,
whose `prev` is the hash of the line before (64 zeros on line 1) and whose `seq` is one more
than the line before's (0 on line 1). The file is read under a shared lock, so a writer's
half-written line is never mistaken for tampering.

What a chain alone cannot show: lines removed from the end (the shorter file is a valid
chain), and a chain rewritten from some line to the end with every hash recomputed. Keep the
last hash somewhere else and pass it as `head` to catch both.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any, NamedTuple

from hookagent._record import record
from hookagent.capabilities.audit._chain import ZERO_HASH, canonical, digest

__all__ = ["VerifyReport", "verify"]


@record
class VerifyReport:
    path: str
    ok: bool
    records: int
    """Records read intact and in order: all of them when `ok`, else those before the first
    bad line."""
    first_bad_line: int | None = None
    """1-based; None when the file is intact, or when only `head` disagrees and no line can
    be named."""
    problem: str | None = None
    """What is wrong, naming the line: `line 7: hash does not match its content (edited)`."""
    head: str = ZERO_HASH
    """The hash of the last intact record (64 zeros for an empty file)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Record(NamedTuple):
    seq: int
    prev: str
    hash: str


class _Bad(Exception):
    pass


def verify(path: str | os.PathLike[str], *, head: str | None = None) -> VerifyReport:
    """Check the chain of the audit file at `path`; `head`, if given, is the hash its last
    record must have. A missing or unreadable file raises `OSError`."""
    name = os.fspath(path)
    with open(name, "rb") as file:
        fcntl.flock(file.fileno(), fcntl.LOCK_SH)  # writers append whole lines under LOCK_EX
        return _check(name, iter(file), head)


def _check(path: str, lines: Iterator[bytes], head: str | None) -> VerifyReport:
    prev_hash, prev_seq, number, head_line = ZERO_HASH, -1, 0, None

    def bad(line: int | None, problem: str) -> VerifyReport:
        return VerifyReport(
            path=path,
            ok=False,
            records=line - 1 if line is not None else number,
            first_bad_line=line,
            problem=problem,
            head=prev_hash,
        )

    for raw in lines:
        number += 1
        try:
            record = _parse(raw, number)
        except _Bad as exc:
            return bad(number, str(exc))
        if record.prev != prev_hash:
            return bad(number, _unlinked(number, record, prev_seq, _follower(lines)))
        if record.seq != prev_seq + 1:
            return bad(number, f"line {number}: seq {record.seq} after {prev_seq} (out of order)")
        prev_hash, prev_seq = record.hash, record.seq
        if record.hash == head:
            head_line = number
    if head is not None and head != prev_hash:
        if head_line is not None:
            after = head_line + 1
            return bad(after, f"line {after}: comes after the expected head, line {head_line}")
        return bad(
            None,
            f"the last hash is not the expected head (lines were removed from the end, or the "
            f"chain was rewritten); {number} records read",
        )
    return VerifyReport(path=path, ok=True, records=number, head=prev_hash)


def _parse(raw: bytes, number: int) -> _Record:
    if not raw.endswith(b"\n"):
        raise _Bad(f"line {number}: last line is cut off (truncated)")
    try:
        data = json.loads(raw)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError both
        raise _Bad(f"line {number}: not JSON") from None
    record = _fields(data)
    if record is None:
        raise _Bad(f"line {number}: not an audit record (it needs seq, prev and hash)")
    body = dict(data)
    del body["hash"]
    try:
        content = canonical(body)
    except ValueError:  # NaN or infinity: no writer puts them there
        content = ""
    if digest(content) != record.hash:
        raise _Bad(f"line {number}: hash does not match its content (edited)")
    return record


def _fields(data: Any) -> _Record | None:
    if not isinstance(data, dict):
        return None
    seq, prev, sealed = data.get("seq"), data.get("prev"), data.get("hash")
    if type(seq) is not int or not isinstance(prev, str) or not isinstance(sealed, str):
        return None
    return _Record(seq, prev, sealed)


def _follower(lines: Iterator[bytes]) -> _Record | bool | None:
    """The next line's record; None at the end of the file; False if it is not one."""
    raw = next(lines, None)
    if raw is None:
        return None
    try:
        record = _fields(json.loads(raw))
    except ValueError:
        return False
    return False if record is None else record


def _unlinked(number: int, record: _Record, prev_seq: int, follower: _Record | bool | None) -> str:
    """Why line `number` does not follow the line before: lines missing between them (the
    rest of the chain goes on from this line), or a line deleted, inserted or moved."""
    skipped = record.seq > prev_seq + 1
    continues = follower is None or (
        isinstance(follower, _Record)
        and follower.prev == record.hash
        and follower.seq == record.seq + 1
    )
    if skipped and continues:
        if number == 1:
            return f"line 1: seq {record.seq} at the start of the file (a line is missing)"
        return f"line {number}: seq {record.seq} after {prev_seq} (a line is missing)"
    if number == 1:
        return "line 1: prev does not start a chain (a line was deleted, inserted or moved)"
    return (
        f"line {number}: prev does not match line {number - 1} "
        "(a line was deleted, inserted or moved)"
    )

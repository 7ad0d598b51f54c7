"""`Read{file_path, offset?, limit?}`: numbered lines of a text file, streamed.

Memory stays bounded whatever the file: lines before the window are skipped and lines after
it counted in 1 MiB chunks, a line is read at most `_MAX_LINE_BYTES` at a time (the rest of an
overlong line is skipped), and only the window's lines are kept. Time is bounded past the
window: beyond `SCAN_LIMIT` bytes the total is reported as unknown (`totalLines: None`)
rather than counted.
"""

from __future__ import annotations

import codecs
import io
import os
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, final

from pydantic import Field

from hookagent.capabilities.files._paths import PathError, os_errors
from hookagent.capabilities.files._tool import Args, FileTool
from hookagent.tools._base import ToolContext, ToolResult

__all__ = ["DEFAULT_LIMIT", "MAX_LINE_CHARS", "SCAN_LIMIT", "ReadArgs", "ReadTool", "is_binary"]

DEFAULT_LIMIT: Final = 2000
"""Lines shown when no `limit` is given, and the most any call shows."""
MAX_LINE_CHARS: Final = 2000
"""Longer lines are cut here and end with `...`."""
SNIFF_BYTES: Final = 8192
_MAX_LINE_BYTES: Final = 4 * MAX_LINE_CHARS + 4
"""Enough bytes for `MAX_LINE_CHARS` characters of any UTF-8 text, plus one."""
_CHUNK: Final = 1 << 18
_READ_BUFFER: Final = 1 << 16
"""Small buffers: a window read touches little of the file, and big ones cost their size
in memory and time on every call."""
SCAN_LIMIT: Final = 64 << 20
"""Bytes Read scans past its window (to count the lines left, or to find the end of an
overlong line) before it gives up and reports the total as unknown: time stays bounded too."""


class ReadArgs(Args):
    file_path: str = Field(description="The file to read (absolute, or relative to the root).")
    offset: int | None = Field(
        default=None, ge=0, description="The line number to start reading from (1-based)."
    )
    limit: int | None = Field(
        default=None, ge=1, description=f"How many lines to read (at most {DEFAULT_LIMIT})."
    )


def is_binary(head: bytes) -> bool:
    """NUL bytes, or bytes that are not UTF-8, in the first `SNIFF_BYTES` of a file."""
    if b"\x00" in head:
        return True
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=len(head) < SNIFF_BYTES)
    except UnicodeDecodeError:
        return True
    return False


@final
@dataclass(slots=True)
class _Window:
    start: int
    lines: list[str] = field(default_factory=list[str])
    total: int | None = 0
    """None when the rest of the file was too large to count."""


@final
class ReadTool(FileTool[ReadArgs]):
    name = "Read"
    description = (
        "Read a text file. Returns its lines numbered like `cat -n`, from `offset` (1-based) "
        f"for `limit` lines (default and maximum {DEFAULT_LIMIT}); lines over {MAX_LINE_CHARS} "
        "characters are cut. Directories (use LS) and binary files are refused."
    )
    args_model = ReadArgs
    max_result_chars: ClassVar[int | None] = None
    """Bounded by its window (`DEFAULT_LIMIT` lines of `MAX_LINE_CHARS`), as in Claude Code:
    Read is how the model reads a saved output, so saving what it reads would never end."""

    def execute(self, args: ReadArgs, ctx: ToolContext, /) -> ToolResult:
        where = self.root.locate(args.file_path)
        fd, _ = self.root.open_file(where)
        with _reader(fd) as f, os_errors(where.display):
            head = os.pread(fd, SNIFF_BYTES, 0)
            if is_binary(head):
                raise PathError(f"{where.display}: is a binary file, not text; refusing to read")
            start = max(args.offset or 1, 1)
            limit = min(args.limit or DEFAULT_LIMIT, DEFAULT_LIMIT)
            window = _read_window(f, start, limit)
        data: dict[str, Any] = {"filePath": where.display, "startLine": start}
        if window.total == 0:
            data |= {"content": "", "numLines": 0, "totalLines": 0}
            return ToolResult(content="(empty file)", data={"type": "text", "file": data})
        if window.total is not None and start > window.total:
            raise PathError(
                f"Offset beyond end of file: {where.display} has {window.total} lines, "
                f"offset {start} was asked for"
            )
        data |= {
            "content": "\n".join(window.lines),
            "numLines": len(window.lines),
            "totalLines": window.total,
        }
        return ToolResult(content=_numbered(window), data={"type": "text", "file": data})


def _reader(fd: int) -> io.BufferedReader:
    return io.BufferedReader(io.FileIO(fd, "rb", closefd=True), buffer_size=_READ_BUFFER)


def _numbered(window: _Window) -> str:
    text = "\n".join(
        f"{number:6d}\t{line}" for number, line in enumerate(window.lines, window.start)
    )
    end = window.start + len(window.lines) - 1
    if window.total is None:
        return text + (
            f"\n\n(Showing lines {window.start}-{end}; the file goes on, too large to count "
            "its lines: use offset and limit to read further.)"
        )
    if window.start > 1 or end < window.total:
        text += (
            f"\n\n(Showing lines {window.start}-{end} of {window.total}; "
            "use offset and limit to read other lines.)"
        )
    return text


def _read_window(f: io.BufferedReader, start: int, limit: int) -> _Window:
    window = _Window(start)
    before = _skip_lines(f, start - 1)
    if before < start - 1:  # the file ended first
        window.total = before
        return window
    cut = False
    while len(window.lines) < limit:
        if cut and not _skip_rest_of_line(f):
            window.total = None  # an overlong line runs past the scan limit
            return window
        raw = f.readline(_MAX_LINE_BYTES)
        if not raw:
            cut = False
            break
        cut = not raw.endswith(b"\n") and len(raw) == _MAX_LINE_BYTES
        window.lines.append(_text(raw, cut))
    if cut and not _skip_rest_of_line(f):
        window.total = None
        return window
    rest = _count_lines(f)
    window.total = None if rest is None else before + len(window.lines) + rest
    return window


def _text(raw: bytes, cut: bool) -> str:
    line = raw.removesuffix(b"\n").removesuffix(b"\r").decode("utf-8", errors="replace")
    if cut or len(line) > MAX_LINE_CHARS:
        return line[:MAX_LINE_CHARS] + "..."
    return line


def _skip_lines(f: io.BufferedReader, n: int) -> int:
    """Move past `n` lines; return how many there were (a last line without `\\n` counts)."""
    skipped, buf = 0, bytearray(_CHUNK)
    ended_with_newline = True
    while skipped < n:
        size = f.readinto(buf)
        if not size:
            return skipped + (0 if ended_with_newline else 1)
        count = buf.count(b"\n", 0, size)
        if skipped + count >= n:
            at = -1
            for _ in range(n - skipped):
                at = buf.index(b"\n", at + 1, size)
            f.seek(at + 1 - size, io.SEEK_CUR)
            return n
        skipped += count
        ended_with_newline = buf[size - 1] == 0x0A
    return skipped


def _skip_rest_of_line(f: io.BufferedReader) -> bool:
    """Move past the next `\n` (or to the end); False if none came within `SCAN_LIMIT`."""
    buf, scanned = bytearray(_CHUNK), 0
    while scanned < SCAN_LIMIT:
        size = f.readinto(buf)
        if not size:
            return True
        at = buf.find(b"\n", 0, size)
        if at != -1:
            f.seek(at + 1 - size, io.SEEK_CUR)
            return True
        scanned += size
    return False


def _count_lines(f: io.BufferedReader) -> int | None:
    """The lines from here to the end, in fixed-size chunks; None past `SCAN_LIMIT` bytes."""
    if os.fstat(f.fileno()).st_size - f.tell() > SCAN_LIMIT:
        return None
    count, buf, last = 0, bytearray(_CHUNK), 0x0A
    while size := f.readinto(buf):
        count += buf.count(b"\n", 0, size)
        last = buf[size - 1]
    return count + (last != 0x0A)

"""Grep's pure-Python engine, for machines without ripgrep: Python's `re` over the files.

It keeps ripgrep's rules where they decide what is searched — symbolic links met during
the walk are not followed, VCS directories and binary files (NUL bytes, or not UTF-8, in
the first 8 KiB) are skipped — but reads no `.gitignore`. Files are read line by line, at
most `_MAX_LINE_BYTES` at a time (a match spanning that cut is missed); `multiline` reads a
whole file, so files over `MAX_MULTILINE_BYTES` are skipped then.
"""

from __future__ import annotations

import collections
import io
import os
import re
import stat
from collections.abc import Generator, Iterable, Iterator
from contextlib import closing
from typing import Final

from hookagent.capabilities.files._file_types import type_globs
from hookagent.capabilities.files._grep_report import FileMatches, Line, Query
from hookagent.capabilities.files._paths import Located, Root
from hookagent.capabilities.files._read import SNIFF_BYTES, is_binary
from hookagent.capabilities.files._walk import compile_glob, open_search_top, walk_files

__all__ = ["MAX_MULTILINE_BYTES", "search"]

MAX_MULTILINE_BYTES: Final = 8 << 20
_MAX_LINE_BYTES: Final = 1 << 20


def search(root: Root, where: Located, query: Query) -> list[FileMatches]:
    """The files under `where` that match, in walk (name) order. Raises `re.error` for a bad
    pattern and `PathError` for a bad `where` or file type."""
    flags = (re.IGNORECASE if query.case_insensitive else 0) | (
        re.DOTALL | re.MULTILINE if query.multiline else 0
    )
    regex = re.compile(query.pattern, flags)
    wanted = [compile_glob(query.glob)] if query.glob else []
    types = [compile_glob(g) for g in type_globs(query.file_type)] if query.file_type else []
    found: list[FileMatches] = []
    lines = 0
    with closing(_files(root, where)) as files:
        for path, rel, fd, mtime in files:
            name = rel if query.glob and "/" in query.glob else os.path.basename(rel)
            if (wanted and not wanted[0].match(name)) or (
                types and not any(t.match(os.path.basename(rel)) for t in types)
            ):
                os.close(fd)
                continue
            try:
                count, hits = _search(fd, regex, query)
            except OSError:
                continue  # unreadable: skipped like a binary file
            if count:
                found.append(FileMatches(path, count, mtime, hits))
                lines += len(hits)
                if query.enough is not None and lines > query.enough:
                    break
    return found


def _files(root: Root, where: Located) -> Generator[tuple[str, str, int, int], None, None]:
    """(shown path, path below `where`, open fd, mtime) per regular file to search; each fd
    is the consumer's to close. A link given as `where` is followed while it stays inside
    the root; links met during the walk are not followed (ripgrep's rule)."""
    top, single = open_search_top(root, where)
    if single:
        mtime = os.fstat(top).st_mtime_ns
        yield where.display, os.path.basename(where.display), top, mtime
        return
    try:
        for entry in walk_files(top):
            if not stat.S_ISREG(entry.stat.st_mode):
                continue  # links, devices, FIFOs, sockets
            try:
                fd = os.open(
                    entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=entry.dir_fd
                )
            except OSError:
                continue
            yield os.path.join(where.display, entry.rel), entry.rel, fd, entry.stat.st_mtime_ns
    finally:
        os.close(top)


def _search(fd: int, regex: re.Pattern[str], query: Query) -> tuple[int, list[Line]]:
    """How many matches one file has (lines, or matches when multiline) and its lines to
    show: all matches with their context in content mode, else none. Closes `fd`."""
    with io.BufferedReader(io.FileIO(fd, "rb"), buffer_size=1 << 16) as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or is_binary(os.pread(fd, SNIFF_BYTES, 0)):
            return 0, []
        if query.multiline:
            raw = f.read(MAX_MULTILINE_BYTES + 1)
            if len(raw) > MAX_MULTILINE_BYTES:
                return 0, []
            text = raw.decode("utf-8", errors="replace")
            count, matched = _multiline_matches(text, regex)
            numbered = enumerate(text.removesuffix("\n").split("\n"), 1)
            marks: Iterator[Line] = ((n, n in matched, s.removesuffix("\r")) for n, s in numbered)
        else:
            marks = ((n, bool(regex.search(s)), s) for n, s in _read_lines(f))
            count = -1
        if query.mode != "content":
            if count >= 0:
                return count, []
            if query.mode == "files_with_matches":
                return int(any(hit for _, hit, _ in marks)), []
            return sum(hit for _, hit, _ in marks), []
        shown = _with_context(marks, query.before, query.after)
        return (count if count >= 0 else sum(1 for _, hit, _ in shown if hit)), shown


def _read_lines(f: io.BufferedReader[io.FileIO]) -> Iterator[tuple[int, str]]:
    number, at_start = 0, True
    while raw := f.readline(_MAX_LINE_BYTES):
        number += at_start
        at_start = raw.endswith(b"\n")
        yield number, raw.removesuffix(b"\n").removesuffix(b"\r").decode("utf-8", errors="replace")


def _multiline_matches(text: str, regex: re.Pattern[str]) -> tuple[int, set[int]]:
    """How many matches, and the numbers of the lines they cover."""
    count, lines = 0, set[int]()
    line, pos = 1, 0
    for match in regex.finditer(text):
        count += 1
        line += text.count("\n", pos, match.start())
        pos = match.start()
        span = text.count("\n", match.start(), max(match.start(), match.end() - 1))
        lines.update(range(line, line + span + 1))
    return count, lines


def _with_context(marks: Iterable[Line], before: int, after: int) -> list[Line]:
    """The matching lines, with up to `before` lines ahead of each and `after` behind."""
    shown: list[Line] = []
    behind: collections.deque[Line] = collections.deque(maxlen=before or None)
    left = 0
    for line in marks:
        if line[1]:
            shown.extend(behind)
            behind.clear()
            shown.append(line)
            left = after
        elif left:
            shown.append(line)
            left -= 1
        elif before:
            behind.append(line)
    return shown

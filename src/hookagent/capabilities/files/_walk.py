"""Globs as regular expressions, and a walk of a directory tree that stays inside it.

Globs follow the shapes Claude Code's Glob and Grep take: `**` spans directories (`**/`
also matches none), `*` and `?` stay within one component, `[...]` is a class (`[!...]`
negated), `{a,b}` alternates. Dot files match like any other.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from typing import Final

from hookagent._record import record
from hookagent.capabilities.files._paths import (
    Located,
    PathError,
    Resolved,
    Root,
    open_dir_at,
    open_regular,
)

__all__ = [
    "SKIP_DIRS",
    "Entry",
    "open_search_top",
    "compile_glob",
    "confined",
    "literal_prefix",
    "open_entry",
    "walk_files",
]

SKIP_DIRS: Final = frozenset({".git", ".hg", ".svn"})
_MAGIC: Final = re.compile(r"[*?\[{]")


def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex matching whole `/`-separated relative paths that `pattern` matches."""
    return re.compile(_translate(pattern) + r"\Z", re.DOTALL)


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            negate = body.startswith("!")
            body = body.removeprefix("!").replace("\\", "\\\\")
            out.append(f"[{'^/' if negate else ''}{body}]")
            i = end + 1
        elif c == "{" and (end := _closing_brace(pattern, i)) != -1:
            alternatives = _split_top(pattern[i + 1 : end])
            out.append("(?:" + "|".join(_translate(alt) for alt in alternatives) + ")")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _closing_brace(pattern: str, start: int) -> int:
    depth = 0
    for i in range(start, len(pattern)):
        depth += {"{": 1, "}": -1}.get(pattern[i], 0)
        if depth == 0:
            return i
    return -1


def _split_top(body: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for c in body:
        if c == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += {"{": 1, "}": -1}.get(c, 0)
        current.append(c)
    parts.append("".join(current))
    return parts


def literal_prefix(pattern: str) -> tuple[str, str]:
    """Split `src/lib/**/*.py` into (`src/lib`, `**/*.py`): the walk can start lower."""
    parts = pattern.split("/")
    cut = 0
    while cut < len(parts) - 1 and not _MAGIC.search(parts[cut]):
        cut += 1
    return "/".join(parts[:cut]), "/".join(parts[cut:])


@record(kw_only=False)
class Entry:
    """A non-directory found by the walk."""

    rel: str
    """Its path below the walk's top, `/`-separated."""
    dir_fd: int
    """Its directory, open only while the walk is at this entry."""
    name: str
    stat: os.stat_result
    """Its own `lstat`."""


def walk_files(top_fd: int, prefix: str = "") -> Iterator[Entry]:
    """Every non-directory under `top_fd`, in name order, skipping VCS directories.

    Each directory is opened relative to its parent's fd with `O_NOFOLLOW | O_DIRECTORY`, so
    the walk never enters a symlink (nor blocks on a FIFO swapped in) and never leaves the
    tree; symlinks are yielded as entries for the caller to judge.
    """
    with os.scandir(top_fd) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            st = None if is_dir else entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if st is not None:
            yield Entry(prefix + entry.name, top_fd, entry.name, st)
            continue
        if entry.name in SKIP_DIRS:
            continue
        try:
            fd = open_dir_at(entry.name, top_fd, prefix + entry.name)
        except PathError:
            continue
        if fd is None:
            continue
        try:
            yield from walk_files(fd, prefix + entry.name + "/")
        finally:
            os.close(fd)


def open_entry(root: Root, top: Located, entry: Entry) -> tuple[int, os.stat_result]:
    """An fd for reading `entry` if it is a regular file, or a symlink that resolves to one
    inside the root; `PathError` otherwise."""
    display = os.path.join(top.display, entry.rel)
    if stat.S_ISLNK(entry.stat.st_mode):
        return root.open_file(Located(display, top.parts + tuple(entry.rel.split("/"))))
    return open_regular(Resolved(entry.dir_fd, entry.name, entry.stat, display))


def confined(root: Root, top: Located, entry: Entry) -> bool:
    """Whether `entry` is a regular file, or a symlink to one that stays inside the root."""
    if not stat.S_ISLNK(entry.stat.st_mode):
        return stat.S_ISREG(entry.stat.st_mode)
    try:
        fd, _ = open_entry(root, top, entry)
    except PathError:
        return False
    os.close(fd)
    return True


def open_search_top(root: Root, where: Located) -> tuple[int, bool]:
    """An fd of what a search starts at, and whether it is one regular file (else a
    directory): resolved under the root, a link followed while it stays inside, opened
    without following one swapped in since. `PathError` for anything else."""
    found = root.resolve(where)
    try:
        if found.stat is not None and stat.S_ISDIR(found.stat.st_mode):
            fd = open_dir_at(found.name, found.parent_fd, where.display)
            if fd is None:
                raise PathError(f"{where.display}: changed to a symbolic link while opening")
            return fd, False
        fd, _ = open_regular(found)
        return fd, True
    finally:
        os.close(found.parent_fd)

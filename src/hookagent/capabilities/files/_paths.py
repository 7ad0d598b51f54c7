"""Confinement: every path a file tool touches is resolved beneath one root directory.

A path is first made absolute lexically (`..` collapses as in `os.path.normpath`, as Claude
Code's own path handling does) and refused if it leaves the root. It is then walked one
component at a time from a directory fd of the root: each directory is opened with
`O_NOFOLLOW` relative to its parent's fd, and a symlink met on the way is read with
`readlink` and its target walked the same way, from the root, with `..` popping the walked
components. A target that leaves the root is refused. Because every open is relative to an
fd already held and never follows a link, a symlink swapped in after a check is not followed:
the open fails with `ELOOP` and the walk looks again.

Not defended against: someone with write access *above* the root moving a directory the walk
already holds out of the root (the kernel's `openat2(RESOLVE_BENEATH)` is the only complete
answer, and it is Linux-only). POSIX only (`dir_fd` support is required).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Final, final

from hookagent._record import record

__all__ = [
    "Located",
    "PathError",
    "Resolved",
    "Root",
    "describe",
    "open_dir_at",
    "open_regular",
    "os_errors",
]

_MAX_LINKS: Final = 40
_DIR_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
"""`O_NONBLOCK` so that opening a FIFO swapped in after the type check cannot hang."""


class PathError(Exception):
    """An expected failure with a message for the model; tools turn it into an error result."""


@record(kw_only=False)
class Located:
    display: str
    """The absolute path results and errors name (lexically normalised)."""
    parts: tuple[str, ...]
    """Its components below the root."""


@record(kw_only=False)
class Resolved:
    """The directory holding the target (an fd the caller closes) and the target's name.

    `stat` is the target's own `lstat`, or None if it does not exist (yet)."""

    parent_fd: int
    name: str
    stat: os.stat_result | None
    display: str


def describe(mode: int) -> str:
    """What kind of file `mode` is, for messages about things that are not regular files."""
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


@contextmanager
def os_errors(display: str) -> Iterator[None]:
    """Turn an `OSError` into a `PathError` naming `display`."""
    try:
        yield
    except OSError as exc:
        raise PathError(f"{display}: {exc.strerror or exc}") from exc


def _lstat(name: str, dir_fd: int) -> os.stat_result | None:
    """The check before each open (a seam the race tests swap a symlink in behind)."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


@final
class Root:
    """The directory a `FileTools` is confined to."""

    __slots__ = ("_aliases", "path")

    def __init__(self, root: str | os.PathLike[str]) -> None:
        given = os.path.abspath(os.fspath(root))
        self.path: Final = os.path.realpath(given)
        self._aliases = tuple(dict.fromkeys((self.path, given)))

    def __repr__(self) -> str:
        return f"Root({self.path!r})"

    def locate(self, raw: str) -> Located:
        """`raw` made absolute against the root; refused if it leaves the root."""
        if "\x00" in raw:
            raise PathError(f"{raw!r}: paths must not contain NUL bytes")
        absolute = os.path.normpath(os.path.join(self.path, os.path.expanduser(raw)))
        rel = self._below(absolute)
        if rel is None:
            raise PathError(
                f"{absolute}: outside the working directory {self.path}; "
                "only paths under it can be accessed"
            )
        return Located(os.path.join(self.path, rel) if rel else self.path, _split(rel))

    def _below(self, absolute: str) -> str | None:
        for alias in self._aliases:
            if absolute == alias:
                return ""
            if absolute.startswith(alias.rstrip("/") + "/"):
                return absolute[len(alias.rstrip("/")) + 1 :]
        return None

    def resolve(self, where: Located, *, create_dirs: bool = False) -> Resolved:
        """Walk `where` from the root fd, following symlinks only while they stay inside."""
        with os_errors(where.display):
            fds = [os.open(self.path, _DIR_FLAGS)]
        try:
            name, st = self._walk(fds, list(where.parts), where.display, create_dirs)
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        for fd in fds[:-1]:
            os.close(fd)
        return Resolved(fds[-1], name, st, where.display)

    def _walk(
        self, fds: list[int], pending: list[str], display: str, create_dirs: bool
    ) -> tuple[str, os.stat_result | None]:
        """Consume `pending`; `fds` ends as the chain of directories walked into."""
        hops = 0
        pending.reverse()  # a stack: the next component is at the end
        while pending:
            if hops > _MAX_LINKS:
                raise PathError(f"{display}: too many levels of symbolic links")
            name = pending.pop()
            if name == ".":
                continue
            if name == "..":
                if len(fds) == 1:
                    raise PathError(
                        f"{display}: a symbolic link on the path leads outside the working "
                        f"directory {self.path}"
                    )
                os.close(fds.pop())
                continue
            with os_errors(display):
                st = _lstat(name, fds[-1])
            last = not pending
            if st is not None and stat.S_ISLNK(st.st_mode):
                hops += 1
                self._follow(fds, pending, name, display)
                continue
            if last:
                return name, st
            if st is None and create_dirs:
                with os_errors(display), suppress(FileExistsError):
                    os.mkdir(name, dir_fd=fds[-1])
            elif st is None:
                raise PathError(f"{display}: no such file or directory")
            elif not stat.S_ISDIR(st.st_mode):
                raise PathError(f"{display}: {name!r} on the path is not a directory")
            fd = open_dir_at(name, fds[-1], display)
            if fd is None:  # it turned into a symlink since the check: look again
                hops += 1
                pending.append(name)
                continue
            fds.append(fd)
        return ".", os.fstat(fds[-1])

    def _follow(self, fds: list[int], pending: list[str], name: str, display: str) -> None:
        with os_errors(display):
            target = os.readlink(name, dir_fd=fds[-1])
        if os.path.isabs(target):
            rel = self._below(os.path.normpath(target))
            if rel is None:
                raise PathError(
                    f"{display}: the symbolic link {name!r} points to {target}, "
                    f"outside the working directory {self.path}"
                )
            for fd in fds[1:]:
                os.close(fd)
            del fds[1:]
            target = rel
        pending.extend(reversed(_split(target)))

    def open_file(self, where: Located) -> tuple[int, os.stat_result]:
        """An fd for reading the regular file at `where`, and its `fstat`."""
        found = self.resolve(where)
        try:
            return open_regular(found)
        finally:
            os.close(found.parent_fd)

    def open_dir(self, where: Located) -> int:
        """An fd of the directory at `where`."""
        found = self.resolve(where)
        try:
            if found.stat is None:
                raise PathError(f"{where.display}: no such file or directory")
            if not stat.S_ISDIR(found.stat.st_mode):
                raise PathError(f"{where.display}: not a directory")
            fd = open_dir_at(found.name, found.parent_fd, where.display)
            if fd is None:
                raise PathError(f"{where.display}: changed to a symbolic link while opening")
            return fd
        finally:
            os.close(found.parent_fd)


def open_regular(found: Resolved) -> tuple[int, os.stat_result]:
    """Open a resolved regular file without following a link and check it is what was seen."""
    display, st = found.display, found.stat
    if st is None:
        raise PathError(f"{display}: no such file or directory")
    if stat.S_ISDIR(st.st_mode):
        raise PathError(f"{display}: is a directory, use LS to list it")
    if not stat.S_ISREG(st.st_mode):
        raise PathError(f"{display}: is {describe(st.st_mode)}, not a regular file")
    try:
        fd = os.open(found.name, _FILE_FLAGS, dir_fd=found.parent_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathError(f"{display}: changed to a symbolic link while opening") from exc
        raise PathError(f"{display}: {exc.strerror or exc}") from exc
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino) or not stat.S_ISREG(now.st_mode):
        os.close(fd)
        raise PathError(f"{display}: changed while it was being opened")
    return fd, now


def open_dir_at(name: str, dir_fd: int, display: str) -> int | None:
    """The directory's fd, or None if a symlink is there now (`O_NOFOLLOW` refused it)."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            return None
        raise PathError(f"{display}: {exc.strerror or exc}") from exc


def _split(rel: str) -> tuple[str, ...]:
    return tuple(part for part in rel.split("/") if part)

"""Grep's ripgrep engine: the `rg` binary (the `ripgrep` wheel's, or one on PATH), as
Claude Code's own Grep runs it.

Confinement does not rest on ripgrep's options. The search top is resolved under the root
and opened by the file tools (`paths.py`) first; `rg` then runs *in* that open directory
(its working directory is `/proc/self/fd/N`, so a directory swapped for a symlink after the
check is not what it searches) or reads that open file on its stdin. Below the top, ripgrep
follows no symbolic link (no `-L`) and searches only regular files, so nothing outside the
top is read. `--no-config` keeps a user's `RIPGREP_CONFIG_PATH` from changing what runs.

ripgrep's rules decide what a directory search covers: `.gitignore`, `.ignore` and
`.rgignore` are honoured inside a git repository (a `glob` overrides them, as in ripgrep),
hidden files are searched, `.git`, `.hg` and `.svn` are not, binary files are skipped.
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import sysconfig
import time
from functools import cache
from typing import Final

from hookagent.capabilities.files._grep_report import MAX_COLUMNS, FileMatches, Line, Query
from hookagent.capabilities.files._paths import Located, Root
from hookagent.capabilities.files._read import SNIFF_BYTES, is_binary
from hookagent.capabilities.files._walk import open_search_top

__all__ = ["TIMEOUT", "RipgrepError", "find_rg", "search"]

TIMEOUT: Final = 60.0
"""Seconds a search may take before it is stopped and reported as too broad."""
_MAX_OUTPUT: Final = 64 << 20
"""Bytes of ripgrep output read; past this the search stops and says it was cut."""
_ALWAYS: Final = (
    "--no-config",
    "--null",
    "--with-filename",
    "--hidden",
    "--glob=!.git",
    "--glob=!.hg",
    "--glob=!.svn",
    "--color=never",
    f"--max-columns={MAX_COLUMNS}",
    "--max-columns-preview",
)


class RipgrepError(Exception):
    """ripgrep refused the search (a bad pattern, an unknown type): the model's to read."""


@cache
def find_rg() -> str | None:
    """The `rg` next to this interpreter (the `ripgrep` wheel installs it there), else the
    first on PATH; None if neither exists."""
    beside = os.path.join(sysconfig.get_path("scripts"), "rg")
    if os.access(beside, os.X_OK):
        return beside
    return shutil.which("rg")


def search(rg: str, root: Root, where: Located, query: Query) -> tuple[list[FileMatches], bool]:
    """The files under `where` that match, in path order, and whether the output was cut."""
    fd, single = open_search_top(root, where)
    try:
        if single and is_binary(os.pread(fd, SNIFF_BYTES, 0)):
            return [], False
        argv = [rg, *_ALWAYS, *_flags(query)]
        if single:
            argv += ["--", _through(fd, where)]
            out, cut = _run(argv, cwd=None, fd=fd)
        else:
            argv += ["--", "."]
            out, cut = _run(argv, cwd=_through(fd, where), fd=fd)
        files = _parse(out, query, base=where.display, single=single)
        if query.mode == "files_with_matches":
            for file in files:
                file.mtime = _mtime(file.path, where.display, fd, single)
        files.sort(key=lambda f: f.path.split("/"))
        return files, cut
    finally:
        os.close(fd)


def _flags(query: Query) -> list[str]:
    flags = {
        "files_with_matches": ["--files-with-matches"],
        "count": ["--count-matches" if query.multiline else "--count"],
        "content": ["--line-number"],
    }[query.mode]
    if query.mode == "content":
        flags += [f"--before-context={query.before}", f"--after-context={query.after}"]
    if query.case_insensitive:
        flags.append("--ignore-case")
    if query.multiline:
        flags += ["--multiline", "--multiline-dotall"]
    if query.file_type:
        flags.append(f"--type={query.file_type}")
    if query.glob:
        flags.append(f"--glob={query.glob}")
    return [*flags, f"--regexp={query.pattern}"]


def _through(fd: int, where: Located) -> str:
    """The open file or directory itself where /proc shows it (Linux), else its path."""
    through = f"/proc/self/fd/{fd}"
    return through if os.path.isdir("/proc/self/fd") else where.display


def _run(argv: list[str], *, cwd: str | None, fd: int) -> tuple[bytes, bool]:
    """ripgrep's stdout, read up to `_MAX_OUTPUT` bytes and `TIMEOUT` seconds."""
    env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
    with subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        pass_fds=(fd,),
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        chunks: dict[int, list[bytes]] = {1: [], 2: []}
        size, cut, deadline = 0, False, time.monotonic() + TIMEOUT
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ, 1)
            selector.register(proc.stderr, selectors.EVENT_READ, 2)
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    proc.kill()
                    raise RipgrepError(
                        f"the search took over {TIMEOUT:g} s and was stopped; narrow `path`, "
                        "`glob` or `type`"
                    )
                for key, _ in selector.select(left):
                    data = os.read(key.fd, 1 << 16)
                    if not data:
                        selector.unregister(key.fileobj)
                        continue
                    chunks[key.data].append(data)
                    if key.data == 1:
                        size += len(data)
                        if size > _MAX_OUTPUT:
                            cut = True
                            proc.kill()
                            selector.unregister(key.fileobj)
        code = proc.wait()
    out, err = b"".join(chunks[1]), b"".join(chunks[2]).decode("utf-8", errors="replace")
    if code == 2 and not out and not cut:
        raise RipgrepError(err.strip().replace("rg: ", "") or f"ripgrep failed (exit {code})")
    if cut:  # drop the last, partial line or path
        out = out[: max(out.rfind(b"\n"), out.rfind(b"\0")) + 1]
    return out, cut


def _parse(out: bytes, query: Query, *, base: str, single: bool) -> list[FileMatches]:
    """ripgrep's `--null` output as matches per file, paths shown under `base` (the one
    file's own path when `single`)."""
    text = out.decode("utf-8", errors="replace")
    if query.mode == "files_with_matches":
        paths = (p for p in text.split("\0") if p.strip("\n"))
        return [FileMatches(_shown(p, base, single), 1) for p in paths]
    files: dict[str, FileMatches] = {}
    for row in text.split("\n"):
        path, sep, rest = row.partition("\0")
        if not sep:
            continue  # `--` between groups, or a cut last line
        file = files.get(path)
        if file is None:
            file = files[path] = FileMatches(_shown(path, base, single), 0)
        if query.mode == "count":
            file.count = int(rest or 0)
            continue
        line = _line(rest)
        if line is not None:
            file.lines.append(line)
            file.count += line[1]
    return list(files.values())


def _line(rest: str) -> Line | None:
    """`12:text` (a match) or `12-text` (context)."""
    digits = 0
    while digits < len(rest) and rest[digits].isdigit():
        digits += 1
    if not digits or digits == len(rest):
        return None
    return int(rest[:digits]), rest[digits] == ":", rest[digits + 1 :].removesuffix("\r")


def _shown(path: str, base: str, single: bool) -> str:
    return base if single else os.path.join(base, path.removeprefix("./"))


def _mtime(shown: str, top: str, fd: int, single: bool) -> int:
    try:
        if single:
            return os.fstat(fd).st_mtime_ns
        rel = os.path.relpath(shown, top)
        return os.stat(rel, dir_fd=fd, follow_symlinks=False).st_mtime_ns
    except OSError:
        return 0

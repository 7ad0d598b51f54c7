"""`Grep{pattern, path?, glob?, output_mode?, -i?, -n?, multiline?, head_limit?}`.

Python's `re` over files (no ripgrep needed). Files are read line by line, a line at most
`_MAX_LINE_BYTES` at a time (a match spanning that cut is missed); `multiline` reads a whole
file, so files over `MAX_MULTILINE_BYTES` are skipped then. Binary files (NUL bytes or
non-UTF-8 in the first 8 KiB), VCS directories, and symlinks leading out of the root are
skipped. A content search stops once it has its lines.
"""

from __future__ import annotations

import io
import os
import re
import stat
from collections.abc import Generator, Iterator
from contextlib import closing
from typing import Any, ClassVar, Final, Literal, final

from pydantic import Field

from hookagent.capabilities.files.paths import Located, PathError, open_dir_at, open_regular
from hookagent.capabilities.files.read import SNIFF_BYTES, is_binary
from hookagent.capabilities.files.tool import Args, FileTool
from hookagent.capabilities.files.walk import compile_glob, open_entry, walk_files
from hookagent.tools.base import ToolResult

__all__ = ["DEFAULT_HEAD_LIMIT", "MAX_MULTILINE_BYTES", "GrepArgs", "GrepTool"]

DEFAULT_HEAD_LIMIT: Final = 250
"""Output lines (or files) shown when no `head_limit` is given."""
MAX_HEAD_LIMIT: Final = 2000
MAX_MULTILINE_BYTES: Final = 8 << 20
MAX_COLUMNS: Final = 500
_MAX_LINE_BYTES: Final = 1 << 20

Mode = Literal["content", "files_with_matches", "count"]
Hit = tuple[int, str]
"""A line number and the line."""


class GrepArgs(Args):
    pattern: str = Field(description="A Python regular expression.")
    path: str | None = Field(default=None, description="File or directory (default: root).")
    glob: str | None = Field(default=None, description='Only files matching, e.g. "*.py".')
    output_mode: Mode = Field(
        default="files_with_matches",
        description="content: matching lines; files_with_matches: paths; count: per file.",
    )
    case_insensitive: bool = Field(default=False, alias="-i", description="Ignore case.")
    line_numbers: bool = Field(default=True, alias="-n", description="Number content lines.")
    multiline: bool = Field(
        default=False, description="Let patterns span lines (`.` matches newlines)."
    )
    head_limit: int | None = Field(
        default=None, ge=1, description=f"Show at most this many (default {DEFAULT_HEAD_LIMIT})."
    )


@final
class GrepTool(FileTool[GrepArgs]):
    path_arg = "path"
    name: ClassVar[str] = "Grep"
    description: ClassVar[str] = (
        "Search file contents with a regular expression (Python `re` syntax). output_mode "
        "files_with_matches (default; newest first), content (path:line:text) or count; "
        "`glob` filters files; `-i` ignores case; `multiline` lets matches span lines."
    )
    args_model: ClassVar[type[Any]] = GrepArgs

    def execute(self, args: GrepArgs) -> ToolResult:
        flags = (re.IGNORECASE if args.case_insensitive else 0) | (
            re.DOTALL | re.MULTILINE if args.multiline else 0
        )
        try:
            regex = re.compile(args.pattern, flags)
        except re.error as exc:
            return ToolResult.error(f"Invalid regular expression {args.pattern!r}: {exc}")
        limit = min(args.head_limit or DEFAULT_HEAD_LIMIT, MAX_HEAD_LIMIT)
        where = self.root.locate(args.path or ".")
        lines: list[str] = []
        files: list[tuple[int, str, int]] = []  # mtime, path, matches
        want_all = args.output_mode != "files_with_matches"
        with closing(self._files(where, args.glob)) as found:
            for path, fd, mtime in found:
                try:
                    count, hits = _search(fd, regex, args.multiline, want_all)
                except OSError:
                    continue  # unreadable: skipped like a binary file
                if not count:
                    continue
                files.append((mtime, path, count))
                if args.output_mode == "content":
                    lines.extend(
                        f"{path}:{n}:{text}" if args.line_numbers else f"{path}:{text}"
                        for n, text in hits
                    )
                if len(lines) > limit:
                    break
        return _report(args.output_mode, files, lines, limit)

    def _files(
        self, where: Located, glob: str | None
    ) -> Generator[tuple[str, int, int], None, None]:
        """(path, open fd, mtime) per file to search; each fd is closed once consumed."""
        found = self.root.resolve(where)
        try:
            if found.stat is not None and stat.S_ISDIR(found.stat.st_mode):
                top = open_dir_at(found.name, found.parent_fd, where.display)
                if top is None:
                    raise PathError(f"{where.display}: changed to a symbolic link while opening")
            else:
                fd, st = open_regular(found)
                yield where.display, fd, st.st_mtime_ns
                return
        finally:
            os.close(found.parent_fd)
        wanted = compile_glob(glob) if glob else None
        try:
            for entry in walk_files(top):
                name = entry.rel if glob and "/" in glob else entry.name
                if wanted is not None and not wanted.match(name):
                    continue
                try:
                    fd, st = open_entry(self.root, where, entry)
                except PathError:
                    continue  # a special file, or a symlink leading out of the root
                yield os.path.join(where.display, entry.rel), fd, st.st_mtime_ns
        finally:
            os.close(top)


def _search(
    fd: int, regex: re.Pattern[str], multiline: bool, want_all: bool
) -> tuple[int, list[Hit]]:
    """How many matches one file has (lines, or matches when `multiline`) and the lines
    showing them; only the first unless `want_all`. Closes `fd`."""
    with io.BufferedReader(io.FileIO(fd, "rb"), buffer_size=1 << 16) as f:
        if is_binary(os.pread(fd, SNIFF_BYTES, 0)):
            return 0, []
        if multiline:
            raw = f.read(MAX_MULTILINE_BYTES + 1)
            if len(raw) > MAX_MULTILINE_BYTES:
                return 0, []
            return _search_text(raw.decode("utf-8", errors="replace"), regex, want_all)
        hits = list(_search_lines(f, regex, want_all))
        return len(hits), hits


def _search_lines(
    f: io.BufferedReader[io.FileIO], regex: re.Pattern[str], want_all: bool
) -> Iterator[Hit]:
    number, at_start = 0, True
    while raw := f.readline(_MAX_LINE_BYTES):
        number += at_start
        at_start = raw.endswith(b"\n")
        line = raw.removesuffix(b"\n").removesuffix(b"\r").decode("utf-8", errors="replace")
        if regex.search(line):
            yield number, _clip(line)
            if not want_all:
                return


def _search_text(text: str, regex: re.Pattern[str], want_all: bool) -> tuple[int, list[Hit]]:
    count, hits = 0, list[Hit]()
    line, pos, shown = 1, 0, 0  # line number at `pos`; last line number shown
    for match in regex.finditer(text):
        count += 1
        line += text.count("\n", pos, match.start())
        pos = match.start()
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", match.end())
        block = text[start : None if end == -1 else end].split("\n")
        hits.extend((line + i, _clip(s)) for i, s in enumerate(block) if line + i > shown)
        shown = max(shown, line + len(block) - 1)
        if not want_all:
            break
    return count, hits


def _clip(line: str) -> str:
    return line if len(line) <= MAX_COLUMNS else line[:MAX_COLUMNS] + "..."


def _report(
    mode: Mode, files: list[tuple[int, str, int]], lines: list[str], limit: int
) -> ToolResult:
    if mode == "files_with_matches":
        names = [path for _, path, _ in sorted(files, key=lambda f: (-f[0], f[1]))]
        data = {"mode": mode, "numFiles": len(names), "filenames": names[:limit]}
        if not names:
            return ToolResult(content="No files found", data=data)
        text = f"Found {len(names)} file{'s' if len(names) != 1 else ''}\n" + "\n".join(
            names[:limit]
        )
        return ToolResult(content=text + _more(len(names) - limit, "files"), data=data)
    filenames = [path for _, path, _ in files]
    if mode == "count":
        counts = [f"{path}:{count}" for _, path, count in files]
        total = sum(count for _, _, count in files)
        data = {"mode": mode, "numFiles": len(files), "filenames": filenames, "numMatches": total}
        if not files:
            return ToolResult(content="No matches found", data=data)
        text = "\n".join(counts[:limit]) + _more(len(counts) - limit, "files")
        return ToolResult(
            content=f"{text}\n\nFound {total} total occurrences across {len(files)} files.",
            data=data,
        )
    shown = lines[:limit]
    data = {
        "mode": mode,
        "numFiles": len(files),
        "filenames": filenames,
        "content": "\n".join(shown),
        "numLines": len(shown),
    }
    if not shown:
        return ToolResult(content="No matches found", data=data)
    capped = (
        "\n(Output capped; narrow the search or raise head_limit.)" if len(lines) > limit else ""
    )
    return ToolResult(content="\n".join(shown) + capped, data=data)


def _more(hidden: int, what: str) -> str:
    return f"\n... and {hidden} more {what}" if hidden > 0 else ""

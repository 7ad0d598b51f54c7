"""What a Grep search asks and finds, and the one text both search engines report it as.

The engines (ripgrep, and the pure-Python walk where ripgrep is missing) differ in how they
find lines, not in what the model reads: each returns `FileMatches` per file, and `report`
renders them in Claude Code's shapes — `path:N:text` for a match, `path-N-text` for a
context line, `--` between groups that do not touch — then applies `offset` and
`head_limit`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal, final

from hookagent._record import record
from hookagent.tools._base import ToolResult

__all__ = ["MAX_COLUMNS", "FileMatches", "Line", "Mode", "Query", "clip", "report"]

MAX_COLUMNS: Final = 500
"""Characters of a line shown; the rest becomes `...`."""

Mode = Literal["content", "files_with_matches", "count"]
Line = tuple[int, bool, str]
"""A line number, whether the line matched (else it is context), and its text."""


@record
class Query:
    """One search, as both engines take it."""

    pattern: str
    mode: Mode
    case_insensitive: bool = False
    multiline: bool = False
    glob: str | None = None
    file_type: str | None = None
    before: int = 0
    after: int = 0
    enough: int | None = None
    """Content lines after which an engine that can stop early may stop (offset + limit)."""

    @property
    def context(self) -> bool:
        return self.mode == "content" and (self.before > 0 or self.after > 0)


@final
@dataclass(slots=True)
class FileMatches:
    path: str
    """As shown: absolute, under the root."""
    count: int
    """Matching lines, or matches when multiline."""
    mtime: int = 0
    lines: list[Line] = field(default_factory=list)
    """Matches and context lines in order (content mode only)."""


def clip(text: str) -> str:
    return text if len(text) <= MAX_COLUMNS else text[:MAX_COLUMNS] + "..."


def report(
    query: Query,
    files: list[FileMatches],
    *,
    line_numbers: bool,
    limit: int,
    offset: int,
    engine: str,
    notes: tuple[str, ...] = (),
) -> ToolResult:
    """The result the model reads; `files` in path order (files_with_matches re-sorts them
    newest first, as Claude Code lists them)."""
    data: dict[str, object] = {"mode": query.mode, "engine": engine}
    if offset:
        data["appliedOffset"] = offset
    tail = "".join(f"\n({note})" for note in notes)
    if query.mode == "files_with_matches":
        names = [f.path for f in sorted(files, key=lambda f: (-f.mtime, f.path))]
        shown = names[offset : offset + limit]
        data |= {"numFiles": len(names), "filenames": shown}
        if not names:
            return ToolResult(content="No files found" + tail, data=data)
        text = f"Found {len(names)} file{'s' if len(names) != 1 else ''}\n" + "\n".join(shown)
        return ToolResult(
            content=text + _more(len(names) - offset - limit, "files") + tail, data=data
        )
    filenames = [f.path for f in files]
    if query.mode == "count":
        total = sum(f.count for f in files)
        counts = [f"{f.path}:{f.count}" for f in files][offset : offset + limit]
        data |= {"numFiles": len(files), "filenames": filenames, "numMatches": total}
        if not files:
            return ToolResult(content="No matches found" + tail, data=data)
        text = "\n".join(counts) + _more(len(files) - offset - limit, "files")
        summary = f"\n\nFound {total} total occurrences across {len(files)} files."
        return ToolResult(content=text + summary + tail, data=data)
    lines = _content_lines(files, line_numbers=line_numbers, separators=query.context)
    shown = lines[offset : offset + limit]
    data |= {
        "numFiles": len(files),
        "filenames": filenames,
        "content": "\n".join(shown),
        "numLines": len(shown),
    }
    if not shown:
        return ToolResult(content="No matches found" + tail, data=data)
    capped = len(lines) > offset + limit
    more = "\n(Output capped; narrow the search or raise head_limit.)" if capped else ""
    return ToolResult(content="\n".join(shown) + more + tail, data=data)


def _content_lines(files: list[FileMatches], *, line_numbers: bool, separators: bool) -> list[str]:
    out: list[str] = []
    for file in files:
        previous: int | None = None
        for number, matched, text in file.lines:
            if separators and out and (previous is None or number != previous + 1):
                out.append("--")
            mark = ":" if matched else "-"
            shown = clip(text)
            out.append(
                f"{file.path}{mark}{number}{mark}{shown}"
                if line_numbers
                else f"{file.path}{mark}{shown}"
            )
            previous = number
    return out


def _more(hidden: int, what: str) -> str:
    return f"\n... and {hidden} more {what}" if hidden > 0 else ""

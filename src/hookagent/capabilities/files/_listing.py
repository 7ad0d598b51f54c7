"""`LS{path, ignore?}`: one directory's entries, directories first."""

from __future__ import annotations

import fnmatch
import os
from typing import Final, Literal, final

from pydantic import Field

from hookagent.capabilities.files._tool import Args, FileTool
from hookagent.tools._base import ToolContext, ToolResult

__all__ = ["MAX_ENTRIES", "LSArgs", "LSTool"]

MAX_ENTRIES: Final = 50

Kind = Literal["dir", "file", "link"]
_ORDER: Final[dict[Kind, int]] = {"dir": 0, "file": 1, "link": 1}


class LSArgs(Args):
    path: str = Field(
        default=".", description="The directory to list (absolute, or relative to the root)."
    )
    ignore: list[str] = Field(
        default_factory=list[str], description="Glob patterns of names to leave out."
    )


@final
class LSTool(FileTool[LSArgs]):
    path_arg = "path"
    name = "LS"
    description = (
        "List a directory: `[dir]` entries first, then `[file]` (and `[link]` for symbolic "
        f"links), sorted case-insensitively, at most {MAX_ENTRIES}."
    )
    args_model = LSArgs

    def execute(self, args: LSArgs, ctx: ToolContext, /) -> ToolResult:
        where = self.root.locate(args.path)
        fd = self.root.open_dir(where)
        try:
            with os.scandir(fd) as listing:
                entries = [
                    (_kind(entry), entry.name)
                    for entry in listing
                    if not any(fnmatch.fnmatchcase(entry.name, pat) for pat in args.ignore)
                ]
        finally:
            os.close(fd)
        entries.sort(key=lambda e: (_ORDER[e[0]], e[1].casefold(), e[1]))
        shown = entries[:MAX_ENTRIES]
        data = {
            "path": where.display,
            "entries": [{"name": name, "type": kind} for kind, name in shown],
            "total": len(entries),
            "truncated": len(entries) > len(shown),
        }
        if not entries:
            return ToolResult(content=f"{where.display}: (empty directory)", data=data)
        lines = [f"{where.display}:", *(f"[{kind}] {name}" for kind, name in shown)]
        if len(entries) > len(shown):
            lines.append(f"... and {len(entries) - len(shown)} more entries")
        return ToolResult(content="\n".join(lines), data=data)


def _kind(entry: os.DirEntry[str]) -> Kind:
    """What an entry is, without following a symlink (its target may be outside the root)."""
    try:
        if entry.is_symlink():
            return "link"
        return "dir" if entry.is_dir(follow_symlinks=False) else "file"
    except OSError:
        return "file"

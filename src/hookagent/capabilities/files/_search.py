"""`Glob{pattern, path?}`: files whose path matches a glob, newest first."""

from __future__ import annotations

import heapq
import os
import time
from typing import Final, final

from pydantic import Field

from hookagent.capabilities.files._paths import PathError
from hookagent.capabilities.files._tool import Args, FileTool
from hookagent.capabilities.files._walk import compile_glob, confined, literal_prefix, walk_files
from hookagent.tools._base import ToolContext, ToolResult

__all__ = ["MAX_GLOB_RESULTS", "GlobArgs", "GlobTool"]

MAX_GLOB_RESULTS: Final = 100


class GlobArgs(Args):
    pattern: str = Field(description='A glob such as "**/*.py" or "src/**/*.{ts,tsx}".')
    path: str | None = Field(
        default=None, description="The directory to search in (default: the root)."
    )


@final
class GlobTool(FileTool[GlobArgs]):
    path_arg = "path"
    name = "Glob"
    description = (
        "Find files by name pattern (`**` spans directories, `{a,b}` alternates). Returns "
        f"absolute paths, most recently modified first, at most {MAX_GLOB_RESULTS}. "
        "Symlinks leading out of the root and .git directories are skipped."
    )
    args_model = GlobArgs

    def execute(self, args: GlobArgs, ctx: ToolContext, /) -> ToolResult:
        started = time.perf_counter()
        base = self.root.locate(args.path or ".")
        prefix, rest = literal_prefix(args.pattern)
        top = self.root.locate(os.path.join(base.display, prefix)) if prefix else base
        try:
            fd = self.root.open_dir(top)
        except PathError:
            if top is base:
                raise
            fd = None  # the pattern names a directory that does not exist: nothing matches
        newest: list[tuple[int, str]] = []
        total = 0
        if fd is not None:
            try:
                regex = compile_glob(rest)
                for entry in walk_files(fd):
                    if regex.match(entry.rel) and confined(self.root, top, entry):
                        total += 1
                        item = (entry.stat.st_mtime_ns, os.path.join(top.display, entry.rel))
                        if len(newest) < MAX_GLOB_RESULTS:
                            heapq.heappush(newest, item)
                        else:
                            heapq.heappushpop(newest, item)
            finally:
                os.close(fd)
        names = [path for _, path in sorted(newest, key=lambda item: (-item[0], item[1]))]
        data = {
            "filenames": names,
            "numFiles": len(names),
            "truncated": total > len(names),
            "durationMs": round((time.perf_counter() - started) * 1000),
        }
        if not names:
            return ToolResult(content="No files found", data=data)
        text = "\n".join(names)
        if total > len(names):
            text += (
                f"\n(Results are truncated: {total - len(names)} more files not shown. "
                "Use a more specific path or pattern.)"
            )
        return ToolResult(content=text, data=data)

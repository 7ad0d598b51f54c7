"""`FileTools(root)`: Claude Code's file tools, confined to one directory.

`Read`, `Write`, `Edit`, `Glob`, `Grep` and `LS` take Claude Code's input shapes, so hooks
and settings-file scripts written for Claude Code see what they expect. Every path is
resolved beneath `root` by the tools themselves (`paths.py`): no hook, whatever its order,
can route a call around the confinement.

Each tool also `prepare`s its arguments: a relative path becomes the absolute path under
`root` it means before any hook sees the call, as Claude Code sends paths to hooks. That is
canonical form, not a decision, so it leaves no record; confinement stays in the tools.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Final

from hookagent.capabilities.files._grep import GrepTool, SearchEngine
from hookagent.capabilities.files._listing import LSTool
from hookagent.capabilities.files._paths import Root
from hookagent.capabilities.files._read import ReadTool
from hookagent.capabilities.files._search import GlobTool
from hookagent.capabilities.files._write import EditTool, WriteTool
from hookagent.hooks._decorators import HookProvider
from hookagent.tools._base import Tool

__all__ = ["FileTools"]

PATH_ARGS: Final = {
    "Read": "file_path",
    "Write": "file_path",
    "Edit": "file_path",
    "Glob": "path",
    "Grep": "path",
    "LS": "path",
}
"""The argument naming a path, per tool."""


class FileTools(HookProvider):
    """Read, Write, Edit, Glob, Grep and LS over the files under `root`.

    Args:
        root: the directory the tools may touch; relative paths resolve against it.
        read_only: leave out Write and Edit.
        search: Grep's engine: `auto` (ripgrep where `rg` is found, else pure Python),
            `ripgrep` (a `ConfigError` at build without it) or `python`.
    """

    name = "files"

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        read_only: bool = False,
        search: SearchEngine = "auto",
    ) -> None:
        self.root: Final = Root(root)
        self.read_only: Final = read_only
        self.grep: Final = GrepTool(self.root, search)

    def __repr__(self) -> str:
        return f"FileTools({self.root.path!r}, read_only={self.read_only})"

    def tools(self) -> Iterable[Tool]:
        yield ReadTool(self.root)
        if not self.read_only:
            yield WriteTool(self.root)
            yield EditTool(self.root)
        yield GlobTool(self.root)
        yield self.grep
        yield LSTool(self.root)

"""LS: directories first, case-insensitive order, 50 entries, ignore globs, refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookagent._messages import ToolCall
from hookagent.capabilities.files import FileTools
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolContext, ToolResult


async def ls(root: Path, **args: Any) -> ToolResult:
    tool = next(t for t in FileTools(root).tools() if t.name == "LS")
    ctx = ToolContext(run=RunView(RunState()), call=ToolCall(id="c1", name="LS"))
    return await tool(args, ctx)


async def test_directories_come_first_then_files_case_insensitively(tmp_path: Path) -> None:
    for name in ("beta.txt", "Alpha.txt", "gamma.txt"):
        (tmp_path / name).write_text("")
    for name in ("zeta", "Docs", "build"):
        (tmp_path / name).mkdir()
    (tmp_path / "link").symlink_to("zeta")
    result = await ls(tmp_path, path=str(tmp_path))
    assert result.content.split("\n") == [
        f"{tmp_path}:",
        "[dir] build",
        "[dir] Docs",
        "[dir] zeta",
        "[file] Alpha.txt",
        "[file] beta.txt",
        "[file] gamma.txt",
        "[link] link",
    ]
    assert result.data["entries"][0] == {"name": "build", "type": "dir"}
    assert result.data["total"] == 7 and not result.data["truncated"]


async def test_fifty_entries_at_most(tmp_path: Path) -> None:
    for i in range(75):
        (tmp_path / f"f{i:02}").write_text("")
    result = await ls(tmp_path)
    lines = result.content.split("\n")
    assert len(lines) == 1 + 50 + 1
    assert lines[-2] == "[file] f49" and lines[-1] == "... and 25 more entries"
    assert result.data["truncated"] and result.data["total"] == 75


async def test_ignore_globs_and_subdirectories(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    for name in ("a.py", "a.pyc", "__pycache__"):
        (tmp_path / "pkg" / name).write_text("")
    result = await ls(tmp_path, path="pkg", ignore=["*.pyc", "__*"])
    assert result.content == f"{tmp_path / 'pkg'}:\n[file] a.py"
    empty = await ls(tmp_path, path="pkg", ignore=["*"])
    assert empty.content == f"{tmp_path / 'pkg'}: (empty directory)"


async def test_files_and_missing_paths_are_refused(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("")
    not_dir = await ls(tmp_path, path="f.txt")
    assert not_dir.is_error and f"{tmp_path / 'f.txt'}: not a directory" in not_dir.content
    missing = await ls(tmp_path, path="gone")
    assert missing.is_error and "no such file or directory" in missing.content

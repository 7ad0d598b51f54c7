"""Write and Edit: messages, Claude Code data shapes, atomic replacement, modes, errors."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from hookagent._messages import ToolCall
from hookagent.capabilities.files import FileTools
from hookagent.capabilities.files import _write as write
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolContext, ToolResult


async def call(root: Path, name: str, **args: Any) -> ToolResult:
    tool = next(t for t in FileTools(root).tools() if t.name == name)
    ctx = ToolContext(run=RunView(RunState()), call=ToolCall(id="c1", name=name))
    return await tool(args, ctx)


def failing_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk fills up half way through writing the temporary file."""

    def half_then_enospc(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(write, "_write_all", half_then_enospc)


async def test_write_creates_parents_and_reports_bytes_and_lines(tmp_path: Path) -> None:
    result = await call(tmp_path, "Write", file_path="a/b/c.txt", content="héllo\nworld\n")
    target = tmp_path / "a" / "b" / "c.txt"
    assert result.content == f"Successfully wrote 13 bytes (2 lines) to {target}"
    assert target.read_text() == "héllo\nworld\n"
    assert result.data == {
        "type": "create",
        "filePath": str(target),
        "content": "héllo\nworld\n",
        "success": True,
    }
    again = await call(tmp_path, "Write", file_path=str(target), content="bye")
    assert again.data["type"] == "update" and target.read_text() == "bye"


async def test_write_keeps_the_mode_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o751)
    await call(tmp_path, "Write", file_path="run.sh", content="#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh"]


async def test_write_through_a_symlink_inside_the_root_updates_its_target(
    tmp_path: Path,
) -> None:
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "alias.txt").symlink_to("real.txt")
    result = await call(tmp_path, "Write", file_path="alias.txt", content="new")
    assert not result.is_error
    assert (tmp_path / "real.txt").read_text() == "new"
    assert (tmp_path / "alias.txt").is_symlink()


async def test_a_failed_write_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "keep.txt"
    target.write_text("precious\n")
    failing_write(monkeypatch)
    result = await call(tmp_path, "Write", file_path="keep.txt", content="x" * 10_000)
    assert result.is_error
    assert str(target) in result.content and "No space left" in result.content
    assert target.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


async def test_a_failed_edit_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "keep.txt"
    target.write_text("a = 1\n")
    failing_write(monkeypatch)
    result = await call(tmp_path, "Edit", file_path="keep.txt", old_string="1", new_string="2")
    assert result.is_error and target.read_text() == "a = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


async def test_write_refuses_a_directory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    result = await call(tmp_path, "Write", file_path="d", content="x")
    assert result.is_error and f"{tmp_path / 'd'}: is a directory" in result.content


async def test_edit_replaces_a_unique_string_atomically(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text("x = 1\ny = 2\n")
    target.chmod(0o640)
    result = await call(tmp_path, "Edit", file_path="m.py", old_string="y = 2", new_string="y = 3")
    assert result.content == f"Successfully replaced 1 occurrence(s) in {target}"
    assert result.data == {
        "filePath": str(target),
        "oldString": "y = 2",
        "newString": "y = 3",
        "replaceAll": False,
    }
    assert target.read_text() == "x = 1\ny = 3\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


async def test_edit_replace_all(tmp_path: Path) -> None:
    target = tmp_path / "m.txt"
    target.write_text("a a a b")
    result = await call(
        tmp_path, "Edit", file_path="m.txt", old_string="a", new_string="c", replace_all=True
    )
    assert result.content == f"Successfully replaced 3 occurrence(s) in {target}"
    assert target.read_text() == "c c c b"


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("same", "same", "identical"),
        ("", "x", "must not be empty"),
        ("absent", "x", "not found"),
        ("dup", "x", "found 2 times"),
    ],
)
async def test_edit_errors_name_the_file_and_the_problem(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    target = tmp_path / "e.txt"
    target.write_text("dup same dup\n")
    result = await call(tmp_path, "Edit", file_path="e.txt", old_string=old, new_string=new)
    assert result.is_error
    assert str(target) in result.content and problem in result.content
    assert target.read_text() == "dup same dup\n"


async def test_an_ambiguous_edit_tells_the_model_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "e.txt").write_text("x\nx\n")
    result = await call(tmp_path, "Edit", file_path="e.txt", old_string="x", new_string="y")
    assert "surrounding context" in result.content and "replace_all" in result.content


async def test_edit_refuses_missing_binary_and_directory_targets(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "b.bin").write_bytes(b"\xff\xfe\x00")
    for name, problem in {
        "missing.txt": "no such file",
        "b.bin": "not a UTF-8 text file",
        "d": "is a directory",
    }.items():
        result = await call(tmp_path, "Edit", file_path=name, old_string="a", new_string="b")
        assert result.is_error and problem in result.content, name


async def test_edit_matches_multiline_text_in_crlf_files(tmp_path: Path) -> None:
    target = tmp_path / "dos.txt"
    target.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = await call(
        tmp_path, "Edit", file_path="dos.txt", old_string="one\ntwo", new_string="1\n2"
    )
    assert not result.is_error
    assert target.read_bytes() == b"1\r\n2\r\nthree\r\n"

"""Read: numbered lines, windows, refusals, and memory bounded on a 1 GiB file."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path
from typing import Any

from hookagent._messages import ToolCall
from hookagent.capabilities.files import FileTools
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolContext, ToolResult


async def read(root: Path, **args: Any) -> ToolResult:
    tool = next(t for t in FileTools(root).tools() if t.name == "Read")
    ctx = ToolContext(run=RunView(RunState()), call=ToolCall(id="c1", name="Read"))
    return await tool(args, ctx)


async def test_lines_are_numbered_like_cat_n_and_data_has_claude_codes_shape(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    result = await read(tmp_path, file_path="a.txt")
    assert not result.is_error
    assert result.content == "     1\talpha\n     2\tbeta"
    assert result.data == {
        "type": "text",
        "file": {
            "filePath": str(tmp_path / "a.txt"),
            "content": "alpha\nbeta",
            "numLines": 2,
            "startLine": 1,
            "totalLines": 2,
        },
    }


async def test_offset_and_limit_choose_a_window_and_say_so(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = await read(tmp_path, file_path=str(tmp_path / "n.txt"), offset=4, limit=3)
    lines = result.content.split("\n")
    assert lines[:3] == ["     4\tline 4", "     5\tline 5", "     6\tline 6"]
    assert "Showing lines 4-6 of 10" in result.content
    assert result.data["file"]["startLine"] == 4 and result.data["file"]["numLines"] == 3
    assert result.data["file"]["totalLines"] == 10


async def test_the_default_window_and_the_maximum_are_2000_lines(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x\n" * 2500)
    for args in ({}, {"limit": 5000}):
        result = await read(tmp_path, file_path="big.txt", **args)
        assert result.data["file"]["numLines"] == 2000
        assert result.data["file"]["totalLines"] == 2500
        assert "Showing lines 1-2000 of 2500" in result.content


async def test_long_lines_are_cut_at_2000_characters(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("é" * 5000 + "\nshort\n" + "z" * 20000)
    result = await read(tmp_path, file_path="wide.txt")
    first, second, third = result.content.split("\n")[:3]
    assert first == "     1\t" + "é" * 2000 + "..."
    assert second == "     2\tshort"
    assert third == "     3\t" + "z" * 2000 + "..."
    assert result.data["file"]["totalLines"] == 3


async def test_empty_file_offset_past_the_end_and_crlf(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    empty = await read(tmp_path, file_path="empty.txt")
    assert empty.content == "(empty file)" and not empty.is_error
    (tmp_path / "three.txt").write_text("a\nb\nc")
    beyond = await read(tmp_path, file_path="three.txt", offset=4)
    assert beyond.is_error
    assert "Offset beyond end of file" in beyond.content
    assert str(tmp_path / "three.txt") in beyond.content
    assert (await read(tmp_path, file_path="three.txt", offset=3)).content.startswith("     3\tc")
    (tmp_path / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    assert (await read(tmp_path, file_path="dos.txt")).content == "     1\tone\n     2\ttwo"


async def test_directories_binaries_and_missing_files_are_refused(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "blob.bin").write_bytes(b"abc\x00def")
    (tmp_path / "latin.txt").write_bytes("café".encode("latin-1"))
    cases = {
        "sub": "is a directory, use LS",
        "blob.bin": "binary",
        "latin.txt": "binary",
        "nope.txt": "no such file",
    }
    for name, problem in cases.items():
        result = await read(tmp_path, file_path=name)
        assert result.is_error, name
        assert problem in result.content and str(tmp_path / name) in result.content


async def test_invalid_arguments_are_an_error_result(tmp_path: Path) -> None:
    result = await read(tmp_path, path="a.txt")
    assert result.is_error and "file_path" in result.content


async def test_a_1_gib_sparse_file_is_read_in_bounded_memory_and_time(tmp_path: Path) -> None:
    """3000 short lines, then a hole of NULs to 1 GiB with no newline: one giant last line.
    Neither the default window nor one reaching the giant line loads it, or scans it all."""
    big = tmp_path / "huge.log"
    with big.open("wb") as f:
        f.write(b"".join(b"line %d\n" % i for i in range(1, 3001)))
        f.truncate(1 << 30)
    tracemalloc.start()
    try:
        head = await read(tmp_path, file_path="huge.log")
        tail = await read(tmp_path, file_path="huge.log", offset=2999)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB"
    assert head.data["file"]["numLines"] == 2000
    assert head.data["file"]["totalLines"] is None  # past SCAN_LIMIT: not counted
    assert "the file goes on" in head.content
    assert tail.content.split("\n")[:3] == [
        "  2999\tline 2999",
        "  3000\tline 3000",
        "  3001\t" + "\x00" * 2000 + "...",
    ]
    assert tail.data["file"]["totalLines"] is None
    assert os.path.getsize(big) == 1 << 30


async def test_lines_after_the_window_are_counted_within_the_scan_limit(tmp_path: Path) -> None:
    """A 20 MiB file with a 16 MiB line: the line is cut, and the lines after it counted."""
    path = tmp_path / "mixed.txt"
    with path.open("wb") as f:
        f.write(b"first\n" + b"y" * (16 << 20) + b"\nlast\n")
        f.truncate(20 << 20)
    result = await read(tmp_path, file_path="mixed.txt", limit=3)
    assert result.content.split("\n")[1] == "     2\t" + "y" * 2000 + "..."
    assert result.content.split("\n")[2] == "     3\tlast"
    assert result.data["file"]["totalLines"] == 4

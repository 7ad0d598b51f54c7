"""Every tool stays inside its root: `..`, absolute paths, symlinks, races, NULs, devices."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from hookagent._messages import ToolCall
from hookagent.capabilities.files import FileTools
from hookagent.capabilities.files import _paths as paths
from hookagent.capabilities.files._grep_ripgrep import find_rg
from hookagent.capabilities.files._paths import PathError, Root, open_regular
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolContext, ToolResult

SECRET = "top secret"


async def call(root: Path, name: str, args: dict[str, Any]) -> ToolResult:
    """`name` is a tool's, or `Grep:python` / `Grep:ripgrep` for one engine of Grep."""
    name, _, engine = name.partition(":")
    if engine == "ripgrep" and find_rg() is None:
        pytest.skip("ripgrep is not installed (the dev extra installs it)")
    tools = FileTools(root, search="python" if engine == "python" else "auto").tools()
    tool = next(t for t in tools if t.name == name)
    ctx = ToolContext(run=RunView(RunState()), call=ToolCall(id="c1", name=name))
    return await asyncio.wait_for(tool(args, ctx), timeout=10)  # a FIFO must never hang us


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """`tmp_path/root` holds a file; `tmp_path/outside` a secret the tools must not reach."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text(SECRET + "\n")
    inside = tmp_path / "root"
    inside.mkdir()
    (inside / "ok.txt").write_text("fine\n")
    return inside


def with_path(name: str, path: str) -> dict[str, Any]:
    """Arguments for tool `name` that point it at `path`."""
    return {
        "Read": {"file_path": path},
        "Write": {"file_path": path, "content": "pwned"},
        "Edit": {"file_path": path, "old_string": "top", "new_string": "pwned"},
        "Glob": {"pattern": "**/*", "path": path},
        "Grep": {"pattern": "secret", "path": path},
        "LS": {"path": path},
    }[name.partition(":")[0]]


TOOLS = ["Read", "Write", "Edit", "Glob", "Grep:ripgrep", "Grep:python", "LS"]
GREPS = ["Grep:ripgrep", "Grep:python"]


def untouched(root: Path) -> None:
    secret = root.parent / "outside" / "secret.txt"
    assert secret.read_text() == SECRET + "\n"
    assert sorted(p.name for p in secret.parent.iterdir()) == ["secret.txt"]


@pytest.mark.parametrize("name", TOOLS)
async def test_dot_dot_escapes_are_refused(root: Path, name: str) -> None:
    target = "../outside/secret.txt" if name in ("Read", "Write", "Edit") else "../outside"
    result = await call(root, name, with_path(name, target))
    assert result.is_error, result.content
    assert str(root.parent / "outside") in result.content and "outside" in result.content
    assert SECRET not in result.content
    untouched(root)


@pytest.mark.parametrize("name", TOOLS)
async def test_etc_passwd_is_refused_relative_and_absolute(root: Path, name: str) -> None:
    for path in ("../../../../../../etc/passwd", "/etc/passwd"):
        result = await call(root, name, with_path(name, path))
        assert result.is_error and "/etc/passwd" in result.content
        assert "outside the working directory" in result.content


@pytest.mark.parametrize("name", TOOLS)
async def test_symlinks_pointing_outside_are_refused(root: Path, name: str) -> None:
    outside = root.parent / "outside"
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside)
    (root / "abs.txt").symlink_to("/etc/passwd")
    targets = ["link.txt", "abs.txt", "linkdir/secret.txt"]
    if name in ("Glob", *GREPS, "LS"):
        targets = ["linkdir", "linkdir/"]
    for target in targets:
        result = await call(root, name, with_path(name, target))
        assert result.is_error, (target, result.content)
        assert str(root / target.rstrip("/")) in result.content
        assert SECRET not in result.content
    untouched(root)


@pytest.mark.parametrize("grep", GREPS)
async def test_searches_over_the_root_skip_links_leading_out(root: Path, grep: str) -> None:
    (root / "link.txt").symlink_to(root.parent / "outside" / "secret.txt")
    (root / "linkdir").symlink_to(root.parent / "outside")
    (root / "inner.txt").symlink_to("ok.txt")  # stays inside: fine to follow
    glob = await call(root, "Glob", {"pattern": "**/*.txt"})
    assert sorted(glob.data["filenames"]) == [str(root / "inner.txt"), str(root / "ok.txt")]
    found = await call(root, grep, {"pattern": "secret|fine", "output_mode": "content"})
    # Grep follows no link met while searching a directory (ripgrep's rule, both engines);
    # one named as `path` is followed while it stays inside.
    assert SECRET not in found.content
    assert found.content == f"{root / 'ok.txt'}:1:fine"
    named = await call(
        root, grep, {"pattern": "fine", "path": "inner.txt", "output_mode": "content"}
    )
    assert named.content == f"{root / 'inner.txt'}:1:fine"
    listing = await call(root, "LS", {"path": "."})
    assert "[link] linkdir" in listing.content and SECRET not in listing.content


async def test_a_chain_of_links_that_ends_outside_is_refused(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "up").symlink_to("..")  # inside: fine
    (root / "sub" / "away").symlink_to("../../outside")
    read = await call(root, "Read", {"file_path": "sub/up/ok.txt"})
    assert read.content == "     1\tfine"
    escaped = await call(root, "Read", {"file_path": "sub/up/sub/away/secret.txt"})
    assert escaped.is_error and SECRET not in escaped.content
    assert "leads outside the working directory" in escaped.content


async def test_write_through_a_linked_directory_creates_nothing_outside(root: Path) -> None:
    (root / "linkdir").symlink_to(root.parent / "outside")
    result = await call(root, "Write", {"file_path": "linkdir/new/x.txt", "content": "x"})
    assert result.is_error and "outside the working directory" in result.content
    untouched(root)


@pytest.mark.parametrize("name", TOOLS)
async def test_nul_bytes_are_refused(root: Path, name: str) -> None:
    result = await call(root, name, with_path(name, "ok.txt\x00../../etc/passwd"))
    assert result.is_error and "NUL" in result.content


async def test_devices_fifos_and_sockets_are_refused_without_hanging(root: Path) -> None:
    assert "outside" in (await call(root, "Read", {"file_path": "/dev/zero"})).content
    (root / "zero").symlink_to("/dev/zero")
    assert (await call(root, "Read", {"file_path": "zero"})).is_error
    os.mkfifo(root / "pipe")
    for name in ("Read", "Write", "Edit"):
        result = await call(root, name, with_path(name, "pipe"))
        assert result.is_error and "is a FIFO" in result.content, name
    for grep in GREPS:
        found = await call(root, grep, {"pattern": ".", "output_mode": "count"})
        assert found.data["filenames"] == [str(root / "ok.txt")], grep
        for named in ("pipe", "zero"):
            refused = await call(root, grep, {"pattern": ".", "path": named})
            assert refused.is_error and named in refused.content, (grep, refused.content)
    glob = await call(root, "Glob", {"pattern": "*"})
    assert glob.data["filenames"] == [str(root / "ok.txt")]


async def test_a_symlink_swapped_in_after_the_check_is_not_followed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check sees a regular file; before the open, an attacker replaces it by a link."""
    real_lstat = paths._lstat

    def lstat_then_swap(name: str, dir_fd: int) -> os.stat_result | None:
        st = real_lstat(name, dir_fd)
        if name == "ok.txt":
            os.unlink(name, dir_fd=dir_fd)
            os.symlink(root.parent / "outside" / "secret.txt", name, dir_fd=dir_fd)
        return st

    monkeypatch.setattr(paths, "_lstat", lstat_then_swap)
    result = await call(root, "Read", {"file_path": "ok.txt"})
    assert result.is_error and "changed to a symbolic link" in result.content
    assert SECRET not in result.content


async def test_a_directory_swapped_for_a_link_mid_walk_is_looked_at_again(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "secret.txt").write_text("harmless\n")
    real_lstat = paths._lstat
    swapped: list[str] = []

    def lstat_then_swap(name: str, dir_fd: int) -> os.stat_result | None:
        st = real_lstat(name, dir_fd)
        if name == "sub" and not swapped:
            swapped.append(name)
            os.rename("sub", "sub.old", src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            os.symlink(root.parent / "outside", "sub", dir_fd=dir_fd)
        return st

    monkeypatch.setattr(paths, "_lstat", lstat_then_swap)
    result = await call(root, "Read", {"file_path": "sub/secret.txt"})
    assert swapped and result.is_error and SECRET not in result.content
    assert "outside the working directory" in result.content


async def test_write_replaces_a_swapped_in_link_instead_of_following_it(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_lstat = paths._lstat

    def lstat_then_swap(name: str, dir_fd: int) -> os.stat_result | None:
        st = real_lstat(name, dir_fd)
        if name == "ok.txt":
            os.unlink(name, dir_fd=dir_fd)
            os.symlink(root.parent / "outside" / "secret.txt", name, dir_fd=dir_fd)
        return st

    monkeypatch.setattr(paths, "_lstat", lstat_then_swap)
    await call(root, "Write", {"file_path": "ok.txt", "content": "new\n"})
    untouched(root)
    assert not (root / "ok.txt").is_symlink() and (root / "ok.txt").read_text() == "new\n"


def test_the_final_open_refuses_a_link_even_after_a_clean_resolution(root: Path) -> None:
    """No monkeypatching: resolve, then swap the file for a link, then open (O_NOFOLLOW)."""
    tools_root = Root(root)
    found = tools_root.resolve(tools_root.locate("ok.txt"))
    try:
        os.unlink(root / "ok.txt")
        (root / "ok.txt").symlink_to(root.parent / "outside" / "secret.txt")
        with pytest.raises(PathError, match="changed to a symbolic link"):
            open_regular(found)
        os.unlink(root / "ok.txt")
        os.mkfifo(root / "ok.txt")  # a FIFO swapped in: opened without blocking, then refused
        with pytest.raises(PathError, match="changed while it was being opened"):
            open_regular(found)
    finally:
        os.close(found.parent_fd)


def test_locate_names_paths_absolutely_and_confines_them(tmp_path: Path) -> None:
    tools_root = Root(tmp_path)
    assert tools_root.locate("a/./b/../c.txt").display == str(tmp_path / "a" / "c.txt")
    assert tools_root.locate(str(tmp_path)).parts == ()
    assert tools_root.locate("a/b").parts == ("a", "b")
    with pytest.raises(PathError, match="outside"):
        tools_root.locate(str(tmp_path) + "-sibling/x")

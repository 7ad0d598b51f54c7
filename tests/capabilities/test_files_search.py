"""Glob and Grep: matching, ordering, caps, skipped files, output modes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from hookagent._messages import ToolCall
from hookagent.capabilities.files import FileTools
from hookagent.capabilities.files._grep_ripgrep import find_rg
from hookagent.capabilities.files._walk import compile_glob, literal_prefix
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolContext, ToolResult


async def call(root: Path, name: str, args: dict[str, Any]) -> ToolResult:
    """`name` is a tool's, or `Grep:python` / `Grep:ripgrep` for one engine of Grep."""
    name, _, engine = name.partition(":")
    if engine == "ripgrep" and find_rg() is None:
        pytest.skip("ripgrep is not installed (the dev extra installs it)")
    tools = FileTools(root, search="python" if engine == "python" else "auto").tools()
    tool = next(t for t in tools if t.name == name)
    ctx = ToolContext(run=RunView(RunState()), call=ToolCall(id="c1", name=name))
    return await tool(args, ctx)


def tree(root: Path, files: dict[str, str]) -> None:
    """Create `files`, each one second newer than the one before."""
    for age, (name, text) in enumerate(files.items()):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (1_000_000 + age, 1_000_000 + age))


GREPS = ["Grep:ripgrep", "Grep:python"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    tree(
        tmp_path,
        {
            "setup.py": "import os\n",
            "src/app/main.py": "def main():\n    return 'Hello'\n",
            "src/app/util.py": "HELLO = 1\nhello = 2\n",
            "src/web/page.tsx": "export const hello = 1;\n",
            "src/web/page.ts": "let x = 1;\n",
            "README.md": "# Hello\n",
            ".git/config": "hello in git\n",
            "data.bin": "hello\x00binary",
        },
    )
    return tmp_path


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("**/*.py", ["src/app/util.py", "src/app/main.py", "setup.py"]),
        ("*.py", ["setup.py"]),
        ("src/**/*.{ts,tsx}", ["src/web/page.ts", "src/web/page.tsx"]),
        ("src/app/*", ["src/app/util.py", "src/app/main.py"]),
        ("**/page.ts?", ["src/web/page.tsx"]),
        ("**/[mu]*.py", ["src/app/util.py", "src/app/main.py"]),
        ("**/config", []),
        ("nowhere/**/*.py", []),
    ],
)
async def test_glob_matches_newest_first_and_skips_git(
    project: Path, pattern: str, expected: list[str]
) -> None:
    result = await call(project, "Glob", {"pattern": pattern})
    assert result.data["filenames"] == [str(project / name) for name in expected]
    assert result.content == ("\n".join(result.data["filenames"]) or "No files found")


async def test_glob_under_a_path_and_with_an_absolute_pattern(project: Path) -> None:
    web = await call(project, "Glob", {"pattern": "*.ts", "path": "src/web"})
    assert web.data["filenames"] == [str(project / "src/web/page.ts")]
    absolute = await call(project, "Glob", {"pattern": f"{project}/src/app/*.py"})
    assert len(absolute.data["filenames"]) == 2
    missing = await call(project, "Glob", {"pattern": "*", "path": "nope"})
    assert missing.is_error and str(project / "nope") in missing.content


async def test_glob_caps_its_results_and_says_how_many_more(tmp_path: Path) -> None:
    tree(tmp_path, {f"f{i:03}.txt": "" for i in range(130)})
    result = await call(tmp_path, "Glob", {"pattern": "**/*.txt"})
    assert result.data["numFiles"] == 100 and result.data["truncated"]
    assert result.data["filenames"][0] == str(tmp_path / "f129.txt")  # the newest
    assert "30 more files not shown" in result.content


def test_glob_translation() -> None:
    assert compile_glob("**/*.py").match("a/b/c.py")
    assert compile_glob("**/*.py").match("c.py")
    assert not compile_glob("*.py").match("a/c.py")
    assert compile_glob("a/**").match("a/b/c")
    assert compile_glob("[!a]*").match("b") and not compile_glob("[!a]*").match("a")
    assert compile_glob("{x,y/{z,w}}.md").match("y/w.md")
    assert compile_glob("a+b(1).txt").match("a+b(1).txt")
    assert literal_prefix("src/lib/**/*.py") == ("src/lib", "**/*.py")
    assert literal_prefix("main.py") == ("", "main.py")


@pytest.mark.parametrize("grep", GREPS)
async def test_grep_lists_matching_files_newest_first_by_default(project: Path, grep: str) -> None:
    result = await call(project, grep, {"pattern": "hello"})
    names = [str(project / n) for n in ("src/web/page.tsx", "src/app/util.py")]
    assert result.data["filenames"] == names
    assert result.content == "Found 2 files\n" + "\n".join(names)


@pytest.mark.parametrize("grep", GREPS)
async def test_grep_content_mode_with_line_numbers_case_and_glob(project: Path, grep: str) -> None:
    result = await call(
        project,
        grep,
        {"pattern": "hello", "-i": True, "output_mode": "content", "glob": "*.py"},
    )
    main, util = project / "src/app/main.py", project / "src/app/util.py"
    assert result.content.split("\n") == [
        f"{main}:2:    return 'Hello'",
        f"{util}:1:HELLO = 1",
        f"{util}:2:hello = 2",
    ]
    plain = await call(project, grep, {"pattern": "HELLO", "output_mode": "content", "-n": False})
    assert plain.content == f"{util}:HELLO = 1"


@pytest.mark.parametrize("grep", GREPS)
async def test_grep_count_mode_head_limit_and_single_files(project: Path, grep: str) -> None:
    count = await call(project, grep, {"pattern": "(?i)hello", "output_mode": "count"})
    assert f"{project / 'src/app/util.py'}:2" in count.content
    assert count.data["numMatches"] == 5 and "across 4 files" in count.content
    limited = await call(
        project, grep, {"pattern": "(?i)hello", "output_mode": "content", "head_limit": 2}
    )
    assert len(limited.data["content"].split("\n")) == 2 and "capped" in limited.content
    one = await call(project, grep, {"pattern": "=", "path": "src/app/util.py"})
    assert one.data["filenames"] == [str(project / "src/app/util.py")]


@pytest.mark.parametrize("grep", GREPS)
async def test_grep_multiline(project: Path, grep: str) -> None:
    result = await call(
        project,
        grep,
        {"pattern": r"main\(\):.*return", "multiline": True, "output_mode": "content"},
    )
    main = project / "src/app/main.py"
    assert result.content.split("\n") == [f"{main}:1:def main():", f"{main}:2:    return 'Hello'"]
    single = await call(project, grep, {"pattern": r"main\(\):.*return"})
    assert single.content == "No files found"


@pytest.mark.parametrize("grep", GREPS)
async def test_grep_skips_binaries_and_git_and_reports_bad_patterns(
    project: Path, grep: str
) -> None:
    result = await call(project, grep, {"pattern": "binary|git"})
    assert result.data["filenames"] == []
    bad = await call(project, grep, {"pattern": "(unclosed"})
    assert bad.is_error and "Invalid regular expression '(unclosed'" in bad.content


@pytest.mark.parametrize("grep", GREPS)
async def test_grep_reads_huge_lines_in_pieces(tmp_path: Path, grep: str) -> None:
    """A 3 MiB line: Python reads it 1 MiB at a time and shows the piece holding the match;
    ripgrep matches the whole line and shows its start. Either way 500 columns at most."""
    (tmp_path / "wide.txt").write_text("x" * (3 << 20) + "needle\nnext needle\n")
    result = await call(tmp_path, grep, {"pattern": "needle", "output_mode": "content"})
    wide = tmp_path / "wide.txt"
    first = "needle" if grep == "Grep:python" else "x" * 500 + "..."
    assert result.content.split("\n") == [f"{wide}:1:{first}", f"{wide}:2:next needle"]

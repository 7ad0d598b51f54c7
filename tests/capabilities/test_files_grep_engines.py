"""Grep on ripgrep and on the pure-Python walk: the same arguments, the same report."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookagent._errors import ConfigError
from hookagent._messages import ToolCall
from hookagent.capabilities.files import FileTools
from hookagent.capabilities.files import _grep_ripgrep as grep_ripgrep
from hookagent.capabilities.files._grep_ripgrep import find_rg
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolContext, ToolResult

needs_rg = pytest.mark.skipif(find_rg() is None, reason="ripgrep is not installed")
ENGINES = [pytest.param("ripgrep", marks=needs_rg), "python"]


async def grep(root: Path, engine: str, **args: Any) -> ToolResult:
    tool = FileTools(root, search=engine).grep  # type: ignore[arg-type]
    assert tool.engine == engine
    ctx = ToolContext(run=RunView(RunState()), call=ToolCall(id="c1", name="Grep"))
    return await tool(args, ctx)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(
        "one\ntwo\nneedle a\nthree\nfour\nfive\nsix\nneedle b\nseven\n"
    )
    (tmp_path / "src" / "page.ts").write_text("needle in ts\n")
    (tmp_path / "notes.md").write_text("no match here\n")
    return tmp_path


@pytest.mark.parametrize("engine", ENGINES)
async def test_context_lines_and_separators(project: Path, engine: str) -> None:
    app = project / "src" / "app.py"
    result = await grep(
        project, engine, pattern="needle", path="src/app.py", output_mode="content", **{"-C": 1}
    )
    assert result.content.split("\n") == [
        f"{app}-2-two",
        f"{app}:3:needle a",
        f"{app}-4-three",
        "--",
        f"{app}-7-six",
        f"{app}:8:needle b",
        f"{app}-9-seven",
    ]
    after = await grep(
        project,
        engine,
        pattern="needle a",
        path="src",
        output_mode="content",
        **{"-A": 2, "-n": False},
    )
    assert after.content.split("\n") == [f"{app}:needle a", f"{app}-three", f"{app}-four"]
    before = await grep(
        project, engine, pattern="three", output_mode="content", context=0, **{"-B": 1}
    )
    assert before.content.split("\n") == [f"{app}-3-needle a", f"{app}:4:three"]


@pytest.mark.parametrize("engine", ENGINES)
async def test_type_filter_offset_and_engine_in_data(project: Path, engine: str) -> None:
    typed = await grep(project, engine, pattern="needle", type="ts")
    assert typed.data["filenames"] == [str(project / "src" / "page.ts")]
    assert typed.data["engine"] == engine
    paged = await grep(
        project, engine, pattern="needle", output_mode="content", offset=1, head_limit=1
    )
    assert paged.data["content"] == f"{project / 'src' / 'app.py'}:8:needle b"
    assert paged.data["appliedOffset"] == 1 and "capped" in paged.content
    unknown = await grep(project, engine, pattern="x", type="nosuchtype")
    assert unknown.is_error and "nosuchtype" in unknown.content


@pytest.mark.parametrize("engine", ENGINES)
async def test_multiline_with_context_counts_matches(project: Path, engine: str) -> None:
    app = project / "src" / "app.py"
    result = await grep(
        project,
        engine,
        pattern=r"needle a\nthree",
        multiline=True,
        output_mode="content",
        **{"-A": 1},
    )
    assert result.content.split("\n") == [f"{app}:3:needle a", f"{app}:4:three", f"{app}-5-four"]
    count = await grep(project, engine, pattern=r"needle.\w", multiline=True, output_mode="count")
    assert count.data["numMatches"] == 3


@needs_rg
async def test_ripgrep_honours_gitignore_in_a_repository_and_a_glob_overrides_it(
    tmp_path: Path,
) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    await asyncio.to_thread(subprocess.run, ["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("needle\n")
    (tmp_path / "main.py").write_text("needle\n")
    (tmp_path / ".hidden.py").write_text("needle\n")
    found = await grep(tmp_path, "ripgrep", pattern="needle")
    assert sorted(found.data["filenames"]) == [
        str(tmp_path / ".hidden.py"),
        str(tmp_path / "main.py"),
    ]
    assert "gitignore" in FileTools(tmp_path).grep.description
    python = await grep(tmp_path, "python", pattern="needle")
    assert str(tmp_path / "build" / "out.py") in python.data["filenames"]


async def test_engine_choice_is_checked_at_build(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match="search"):
        FileTools(tmp_path, search="rg")  # type: ignore[arg-type]
    monkeypatch.setattr(grep_ripgrep, "find_rg", lambda: None)
    with pytest.raises(ConfigError, match=r"hookagent\[ripgrep\]"):
        FileTools(tmp_path, search="ripgrep")
    assert FileTools(tmp_path).grep.engine == "python"
    assert "Python `re`" in FileTools(tmp_path).grep.description


@needs_rg
async def test_a_search_past_its_time_is_stopped_and_says_so(
    monkeypatch: pytest.MonkeyPatch, project: Path
) -> None:
    monkeypatch.setattr(grep_ripgrep, "TIMEOUT", 0.0)
    result = await grep(project, "ripgrep", pattern="needle")
    assert result.is_error and "narrow" in result.content


@needs_rg
async def test_bad_patterns_are_named_by_both_engines(project: Path) -> None:
    for engine in ("ripgrep", "python"):
        bad = await grep(project, engine, pattern="(unclosed")
        assert bad.is_error and "Invalid regular expression '(unclosed'" in bad.content, engine


WORDS = st.sampled_from(["alpha", "beta", "gamma", "needle", "Needle", "x"])


@needs_rg
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    files=st.dictionaries(
        st.sampled_from(["a.txt", "b.py", "sub/c.txt", "sub/deeper/d.md", "e.txt"]),
        st.lists(st.lists(WORDS, min_size=0, max_size=4).map(" ".join), max_size=8),
        min_size=1,
    ),
    pattern=st.sampled_from(["needle", "(?i)needle", "alpha beta", "^x", "a$"]),
    mode=st.sampled_from(["content", "count", "files_with_matches"]),
    context=st.integers(0, 2),
)
async def test_both_engines_report_the_same(
    tmp_path_factory: pytest.TempPathFactory,
    files: dict[str, list[str]],
    pattern: str,
    mode: str,
    context: int,
) -> None:
    root = tmp_path_factory.mktemp("tree")
    for name, lines in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("".join(line + "\n" for line in lines))
    args = {"pattern": pattern, "output_mode": mode, "-C": context}
    rg, py = await grep(root, "ripgrep", **args), await grep(root, "python", **args)
    assert (rg.content, rg.is_error) == (py.content, py.is_error)

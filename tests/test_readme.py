"""The README's first example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_starts_with_the_two_commands() -> None:
    head = README.read_text(encoding="utf-8")[:400]
    assert "make demo" in head and "make test" in head


def test_the_quickstart_runs_and_prints_what_it_says(capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(python_blocks()[0], "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out == ["completed completed I will not.", "user:no_rm_rf"]


def test_the_points_table_matches_the_points() -> None:
    import hookagent as h

    rows = re.findall(
        r"^\| `([A-Z_ /`]+)` \| `\w+` \| ([^|]+) \| ([^|]+) \|", README.read_text(), re.M
    )
    documented: dict[str, set[str]] = {}
    for names, _writable, decisions in rows:
        legal = {word for word in re.findall(r"[a-z]+", decisions.split("(")[0])}
        for name in re.findall(r"[A-Z_]+", names):
            documented[name.lower()] = legal - {"no", "ignore", "context"}
    assert set(documented) == {point.name for point in h.ALL_POINTS}
    for point in h.ALL_POINTS:
        assert documented[point.name] == set(point.decisions) - {"stop"}, point.name


def test_the_capabilities_example_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block = next(b for b in python_blocks() if "FileTools(" in b and "Bash(" in b)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "repo").mkdir()
    from hookagent.testing import ScriptedModel

    namespace: dict[str, object] = {"model": ScriptedModel([]), "h": __import__("hookagent")}
    exec(compile(block, "README.md", "exec"), namespace)
    agent = namespace["agent"]
    names = sorted(agent.tools)  # type: ignore[attr-defined]
    assert names == sorted(
        [
            "Read",
            "Write",
            "Edit",
            "Glob",
            "Grep",
            "LS",
            "Bash",
            "TodoWrite",
            "store_metadata",
            "read_metadata",
            "list_metadata",
            "tools",
        ]
    )

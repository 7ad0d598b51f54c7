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

"""`hookagent run --max-result-chars`: a long tool result is saved in the run's folder and the
model reads a preview; a bad value is refused before anything runs."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from . import run_cli

PLUGIN = textwrap.dedent(
    '''
    import hookagent as h

    @h.tool
    def dump() -> str:
        """A long text."""
        return "x" * 5_000

    def configure(builder):
        builder.tools(dump)
    '''
)


def write_project(tmp_path: Path) -> None:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    turns = [{"tool_calls": [{"name": "dump", "args": {}, "id": "c1"}]}, {"text": "done"}]
    (tmp_path / "turns.json").write_text(json.dumps(turns))


def run(tmp_path: Path, *more: str) -> tuple[int, str, str]:
    args = ("run", "go", "--model", "scripted:turns.json", "--plugin", "plugin.py", *more)
    done = run_cli.hookagent(tmp_path, *args)
    return done.returncode, done.stdout, done.stderr


def test_a_result_over_the_limit_is_a_preview_and_the_whole_text_is_saved(tmp_path: Path) -> None:
    write_project(tmp_path)
    code, out, err = run(tmp_path, "--max-result-chars", "100", "--json")
    assert code == 0, err
    result = json.loads(out)
    [call] = result["tool_calls"]
    content = call["result"]
    assert content.startswith("<persisted-output>\nOutput too large (5,000 characters).")
    [saved] = (tmp_path / ".hookagent" / "runs" / result["run_id"]).iterdir()
    assert saved.read_text() == "x" * 5_000
    assert str(saved) in content


def test_zero_means_no_limit_and_the_default_keeps_short_results_whole(tmp_path: Path) -> None:
    write_project(tmp_path)
    for more in (("--max-result-chars", "0"), ()):
        code, out, err = run(tmp_path, *more, "--json")
        assert code == 0, err
        result = json.loads(out)
        [call] = result["tool_calls"]
        assert call["result"] == "x" * 5_000
    assert not (tmp_path / ".hookagent" / "runs").exists()


def test_a_negative_limit_is_refused_naming_the_option(tmp_path: Path) -> None:
    write_project(tmp_path)
    code, out, err = run(tmp_path, "--max-result-chars", "-5")
    assert code == 2
    assert "--max-result-chars" in err and "-5" in err
    assert out == ""

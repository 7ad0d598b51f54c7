"""`hookagent run --model-alias ALIAS=PROVIDER:MODEL`: agent files naming `sonnet` run on the
model it maps to; what agent files ask for and will not get, and files that cannot be read,
are printed on stderr; a bad value is exit 2 naming it; the aliases are saved with the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookagent.sessions._agent_spec import RunOptions, from_saved, saved_options

from .run_cli import hookagent

PLUGIN = """
from hookagent.capabilities.subagents import AgentRegistry, Subagents


def configure(builder):
    builder.with_(Subagents(AgentRegistry.from_dirs("agents")))
"""


def project(tmp_path: Path) -> Path:
    agents = tmp_path / "agents"
    (agents / "deep").mkdir(parents=True)
    (tmp_path / "subagents.py").write_text(PLUGIN)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews.\nmodel: sonnet\ntools: WebSearch\n---\n"
        "You review.\n"
    )
    (agents / "deep" / "helper.md").write_text(
        "---\nname: Helper Agent\ndescription: Helps.\nmodel: opus\n---\nYou help.\n"
    )
    (agents / "broken.md").write_text("---\nname: broken\ndescription: 'never closed\n---\nx\n")
    call = {"description": "r", "prompt": "review", "subagent_type": "reviewer"}
    turns = [{"tool_calls": [{"name": "Agent", "args": call}]}, "done"]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    (tmp_path / "child.json").write_text(json.dumps(["reviewed by the alias model"]))
    return tmp_path


def run(cwd: Path, *extra: str) -> tuple[int, str, str]:
    args = ("run", "hi", "-m", "scripted:turns.json", "--plugin", "subagents.py", "--json")
    done = hookagent(cwd, *args, *extra)
    return done.returncode, done.stdout, done.stderr


def test_an_alias_runs_the_agent_on_its_model_and_warnings_go_to_stderr(tmp_path: Path) -> None:
    code, stdout, stderr = run(project(tmp_path), "--model-alias", "sonnet=scripted:child.json")
    assert code == 0, stderr
    out = json.loads(stdout)
    assert out["output"] == "done"
    assert out["tool_calls"][0]["result"] == "[Subagent: reviewer] reviewed by the alias model"
    warnings = [line for line in stderr.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        "warning: agents/broken.md: front matter line 3: cannot read `description`: found "
        "unexpected end of stream (while scanning a quoted scalar); the agent is left out",
        "warning: agents/deep/helper.md: agent 'helper' names model 'opus', which no "
        "model alias maps (--model-alias opus=PROVIDER:MODEL, or AgentBuilder.model_alias); "
        "it runs on its parent's model",
        "warning: agents/reviewer.md: agent 'reviewer' names tools this agent does not have: "
        "WebSearch; it runs without them",
    ]


@pytest.mark.parametrize("value", ["sonnet", "sonnet=gpt-4.1", "=openai:x", "inherit=openai:x"])
def test_a_bad_alias_is_exit_2_naming_option_and_value(tmp_path: Path, value: str) -> None:
    code, stdout, stderr = run(project(tmp_path), "--model-alias", value)
    assert code == 2
    assert stdout == ""
    assert "--model-alias" in stderr and repr(value) in stderr
    assert "ALIAS=PROVIDER:MODEL" in stderr


def test_an_alias_to_a_model_that_cannot_be_had_is_exit_2(tmp_path: Path) -> None:
    code, _, stderr = run(project(tmp_path), "--model-alias", "sonnet=nowhere:x")
    assert code == 2
    assert "model alias 'sonnet'" in stderr and "unknown model provider 'nowhere'" in stderr


def test_aliases_are_saved_with_the_run_and_rebuilt(tmp_path: Path) -> None:
    options = RunOptions(
        prompt="hi",
        model="scripted:turns.json",
        model_aliases=("sonnet=scripted:child.json", "opus=openai:gpt-4.1"),
        cwd=str(tmp_path),
    )
    again = from_saved(json.loads(json.dumps(saved_options(options))))
    assert again.model_aliases == (
        f"sonnet=scripted:{tmp_path / 'child.json'}",
        "opus=openai:gpt-4.1",
    )

"""Setup command hooks inside real runs: fired with `trigger` before SessionStart when the run
sets the project up (`ClaudeHookOptions.setup`), their matcher testing the trigger, their
context reaching the model and their `CLAUDE_ENV_FILE` exports the Bash tool; not fired
otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest

import hookagent as h
from hookagent.capabilities.bash import Bash
from hookagent.claude._options import ClaudeHookOptions
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import RECORD_STDIN, group, script, settings


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "stdin.jsonl"
    monkeypatch.setenv("RECORD_TO", str(path))
    monkeypatch.delenv("CLAUDE_ENV_FILE", raising=False)
    return path


def payloads(record: Path) -> list[dict[str, object]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines()]


def agent(
    tmp_path: Path,
    file: Path,
    model: ScriptedModel,
    setup: Literal["init", "maintenance"] | None,
    *,
    bash: bool = False,
) -> h.Agent:
    options = ClaudeHookOptions(project_dir=str(tmp_path), setup=setup)
    builder = h.AgentBuilder().model(model).with_settings(file, options=options)
    if bash:
        builder = builder.with_(Bash(tmp_path))
    return builder.build()


def setup_settings(tmp_path: Path, setup_body: str = "", matcher: str | None = None) -> Path:
    # SessionStart is configured first: Setup still runs before it
    start = script(tmp_path, "start", RECORD_STDIN)
    init = script(tmp_path, "setup", RECORD_STDIN + setup_body)
    return settings(tmp_path, {"SessionStart": [group(start)], "Setup": [group(init, matcher)]})


async def test_setup_fires_with_its_trigger_before_session_start(
    tmp_path: Path, record: Path
) -> None:
    file = setup_settings(tmp_path)
    await agent(tmp_path, file, ScriptedModel([reply("ok")]), "init").run("go")
    first, second = payloads(record)
    assert (first["hook_event_name"], first["trigger"]) == ("Setup", "init")
    assert second["hook_event_name"] == "SessionStart"
    assert {"session_id", "transcript_path", "cwd"} <= set(first)
    assert "permission_mode" not in first  # Setup's payload, as Claude Code sends it


async def test_setup_does_not_fire_when_the_run_sets_nothing_up(
    tmp_path: Path, record: Path
) -> None:
    file = setup_settings(tmp_path)
    await agent(tmp_path, file, ScriptedModel([reply("ok")]), None).run("go")
    assert [p["hook_event_name"] for p in payloads(record)] == ["SessionStart"]


@pytest.mark.parametrize(("trigger", "runs"), [("maintenance", True), ("init", False)])
async def test_the_matcher_tests_the_trigger(
    tmp_path: Path, record: Path, trigger: Literal["init", "maintenance"], runs: bool
) -> None:
    file = setup_settings(tmp_path, matcher="maintenance")
    await agent(tmp_path, file, ScriptedModel([reply("ok")]), trigger).run("go")
    events = [p["hook_event_name"] for p in payloads(record)]
    assert events == (["Setup", "SessionStart"] if runs else ["SessionStart"])


async def test_setup_context_reaches_the_model_and_plain_stdout_does_not(
    tmp_path: Path, record: Path
) -> None:
    body = """
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "Setup",
                                             "additionalContext": "deps installed: 42"}}))
    """
    file = setup_settings(tmp_path, body)
    model = ScriptedModel([reply("ok")])
    result = await agent(tmp_path, file, model, "init").run("go")
    assert "deps installed: 42" in result.state.messages[0].content

    plain = setup_settings(tmp_path, "print('npm install: done')")
    result = await agent(tmp_path, plain, ScriptedModel([reply("ok")]), "init").run("go")
    assert all("npm install" not in str(m.content) for m in result.state.messages)


async def test_setup_exports_reach_the_bash_tool(tmp_path: Path, record: Path) -> None:
    body = """
    with open(os.environ["CLAUDE_ENV_FILE"], "a") as env:
        env.write("export TOOLCHAIN='set up by Setup'\\n")
    """
    init = script(tmp_path, "setup", body)
    file = settings(tmp_path, {"Setup": [group(init)]})
    model = ScriptedModel([tool_call("Bash", command="echo $TOOLCHAIN"), reply("done")])
    result = await agent(tmp_path, file, model, "init", bash=True).run("build")
    [call] = result.tool_calls
    assert call.result.content == "set up by Setup"


async def test_a_failing_setup_hook_does_not_stop_the_run(tmp_path: Path, record: Path) -> None:
    init = script(tmp_path, "setup", "print('no network', file=sys.stderr); sys.exit(2)")
    file = settings(tmp_path, {"Setup": [group(init)]})
    result = await agent(tmp_path, file, ScriptedModel([reply("ok")]), "init").run("go")
    assert (result.status, result.output) == ("completed", "ok")


def test_setup_must_be_init_or_maintenance() -> None:
    with pytest.raises(h.ConfigError) as caught:
        ClaudeHookOptions(setup="install")  # type: ignore[arg-type]
    assert caught.value.key == "setup"

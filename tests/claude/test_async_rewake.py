"""Background command hooks (`async`, `asyncRewake`) in real runs.

The plugin is anthropics/claude-code@5cfc0a1905ce0c0a9bd81d8a90fe6b62ff614357,
plugins/security-guidance: `.claude-plugin/plugin.json`, `hooks/hooks.json` and
`hooks/sg-python.sh` are kept unchanged in fixtures/security-guidance. Its review script asks an
LLM through the Claude Agent SDK, so each test writes a stand-in for it beside them that keeps
the script's contract: a metrics JSON line on stdout, the finding on stderr, exit 2.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import Any

import hookagent as h
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._sources import discover
from hookagent.models._base import ModelRequest
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call

from .hookscripts import group, script, settings

FIXTURE = Path(__file__).parent / "fixtures" / "security-guidance"
FINDING = "app.py:3: SQL injection: the query is built with an f-string from user input"
REVIEW = """
import json, sys
payload = json.loads(sys.stdin.read())
event = payload["hook_event_name"]
command = payload.get("tool_input", {}).get("command", "")
print(json.dumps({"metrics": {"reviewed": 1}}))
if event == "Stop" and not payload["stop_hook_active"] and "{mode}" == "finds":
    print("{finding}", file=sys.stderr)
    sys.exit(2)
if event == "PostToolUse" and command.startswith("git commit") and "{mode}" == "commit":
    print("commit: {finding}", file=sys.stderr)
    sys.exit(2)
"""


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


def plugin(tmp_path: Path, mode: str) -> Path:
    """The plugin, with a stand-in review script that finds the SQL injection on Stop
    (`finds`), in a commit (`commit`), or nowhere."""
    root = tmp_path / "security-guidance"
    shutil.copytree(FIXTURE, root)
    body = REVIEW.replace("{mode}", mode).replace("{finding}", FINDING)
    (root / "hooks" / "security_reminder_hook.py").write_text(textwrap.dedent(body))
    (root / "hooks" / "ensure_agent_sdk.py").write_text("")
    return root


def build(tmp_path: Path, model: Any, root: Path) -> h.Agent:
    loaded = discover(tmp_path, plugin_dirs=[root], include_standard=False)
    options = ClaudeHookOptions(project_dir=str(tmp_path))
    from hookagent.claude._bridge import ClaudeHooks

    hooks = ClaudeHooks(loaded, options)
    return h.AgentBuilder().model(model).tools(Bash).with_(hooks).build()


def test_the_real_plugin_loads_its_async_rewake_handlers_with_their_messages() -> None:
    loaded = discover(FIXTURE, plugin_dirs=[FIXTURE], include_standard=False)
    rewakes = [s for s in loaded.handlers if s.async_rewake]
    assert [(s.event, s.if_rule) for s in rewakes] == [
        ("PostToolUse", "Bash(git commit:*)"),
        ("PostToolUse", "Bash(git push:*)"),
        ("Stop", None),
    ]
    assert all(s.background and s.rewake_message and s.rewake_summary for s in rewakes)
    assert loaded.warnings == ()


async def test_a_stop_review_exiting_2_wakes_the_model_with_its_finding(tmp_path: Path) -> None:
    model = ScriptedModel([reply("done"), reply("fixed the query")])
    result = await build(tmp_path, model, plugin(tmp_path, "finds")).run("add a search endpoint")
    model.assert_consumed()
    assert result.status == "completed" and result.output == "fixed the query"
    woken = model.calls[1].last_message
    assert FINDING in woken
    assert woken.startswith("Background security review feedback")  # its rewakeMessage
    assert '"metrics"' not in woken  # stdout is for Claude Code, stderr for the model


async def test_a_stop_review_exiting_0_lets_the_run_end(tmp_path: Path) -> None:
    model = ScriptedModel([reply("done")])
    result = await build(tmp_path, model, plugin(tmp_path, "clean")).run("add a search endpoint")
    model.assert_consumed()
    assert result.status == "completed" and result.output == "done"


async def test_a_commit_review_reaches_the_model_before_the_run_ends(tmp_path: Path) -> None:
    """The review runs while the model goes on; its finding comes as a system reminder at
    the next step if it is done by then, else it wakes the run when it would end."""
    seen: list[str] = []

    def answer(request: ModelRequest) -> h.ModelResponse:
        texts = [str(m.content) for m in request.messages]
        found = [t for t in texts if f"commit: {FINDING}" in t]
        if found and not seen:
            seen.extend(found)
            return reply("reverted the commit")
        if not any("ran: git commit" in t for t in texts):
            return tool_call("Bash", command="git commit -m 'search endpoint'")
        return reply("committed")

    model = FunctionModel(answer)
    result = await build(tmp_path, model, plugin(tmp_path, "commit")).run("commit it")
    assert result.status == "completed"
    assert result.output == "reverted the commit"
    [text] = seen
    assert text.count(FINDING) == 1
    assert "Background security review of commit" in text  # the git commit handler's message


async def test_an_async_hook_does_not_hold_up_the_event(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "go"
    cmd = script(
        tmp_path,
        "slow_context",
        f"""
        import time
        sys.stdin.read()
        while not os.path.exists({str(gate)!r}):
            time.sleep(0.01)
        print(json.dumps({{"hookSpecificOutput": {{"hookEventName": "PostToolUse",
            "additionalContext": "tests: 3 passed"}}}}))
        """,
    )
    file = settings(tmp_path, {"PostToolUse": [group(cmd, "Bash", **{"async": True})]})

    @h.tool
    def Open(path: str) -> str:
        """Let the background hook finish, then wait for its finding to be kept."""
        gate.write_text("")
        return "opened"

    model = ScriptedModel(
        [
            tool_call("Bash", command="make"),  # the hook starts and waits for the gate
            tool_call("Open", path="x"),  # runs only because PostToolUse did not wait
            reply("done"),
        ]
    )
    options = ClaudeHookOptions(project_dir=str(tmp_path))
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(Bash, Open)
        .with_settings(file, project_dir=tmp_path, options=options)
        .build()
    )
    result = await agent.run("build")
    assert result.status == "completed"
    assert [c.result.content for c in result.tool_calls] == ["ran: make", "opened"]
    model.assert_consumed()


def test_async_on_a_handler_that_is_not_a_command_is_warned_about(tmp_path: Path) -> None:
    data = {"Stop": [{"hooks": [{"type": "prompt", "prompt": "ok?", "async": True}]}]}
    loaded = discover(tmp_path, explicit=[settings(tmp_path, data)], include_standard=False)
    [spec] = loaded.handlers
    assert not spec.background
    [warning] = loaded.warnings
    assert "hooks.Stop[0].hooks[0]" in warning and "command handlers only" in warning


def test_once_outside_a_skill_is_warned_about(tmp_path: Path) -> None:
    data = {"Stop": [group("true", once=True)]}
    loaded = discover(tmp_path, explicit=[settings(tmp_path, data)], include_standard=False)
    [spec] = loaded.handlers
    assert not spec.once
    [warning] = loaded.warnings
    assert "hooks.Stop[0].hooks[0].once" in warning and "skill" in warning

"""Claude Code command hooks inside real runs: decisions, payloads, transcript."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import hookagent as h
from hookagent.claude._options import ClaudeHookOptions
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import RECORD_STDIN, group, script, settings


@h.tool
def Bash(command: str) -> str:  # Claude Code's tool name
    """Pretend to run a shell command."""
    return f"ran: {command}"


@h.tool
def Write(file_path: str, content: str) -> str:
    """Pretend to write a file."""
    return f"wrote {len(content)} bytes to {file_path}"


def agent(
    tmp_path: Path, settings_file: Path, *turns: h.ModelResponse, **options: object
) -> tuple[h.Agent, ScriptedModel]:
    model = ScriptedModel(list(turns))
    opts = ClaudeHookOptions(project_dir=str(tmp_path), **options)  # type: ignore[arg-type]
    built = (
        h.AgentBuilder()
        .model(model)
        .tools(Bash, Write)
        .with_settings(settings_file, project_dir=tmp_path, options=opts)
        .build()
    )
    return built, model


BLOCK_RM = """
payload = json.loads(sys.stdin.read())
if "rm -rf" in payload["tool_input"].get("command", ""):
    print("destructive command blocked by policy", file=sys.stderr)
    sys.exit(2)
"""


async def test_a_pre_tool_use_script_exiting_2_blocks_with_its_stderr(tmp_path: Path) -> None:
    cmd = script(tmp_path, "block_rm", BLOCK_RM)
    file = settings(tmp_path, {"PreToolUse": [group(cmd, "Bash")]})
    run, model = agent(
        tmp_path,
        file,
        tool_call("Bash", command="rm -rf /"),
        tool_call("Bash", command="ls"),
        reply("done"),
    )
    result = await run.run("clean up")
    model.assert_consumed()
    blocked, allowed = result.tool_calls
    assert blocked.blocked and "destructive command blocked by policy" in blocked.result.content
    assert allowed.result.content == "ran: ls"
    assert model.calls[1].last_message == blocked.result.content
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert decision.hook == "claude:PreToolUse"
    assert decision.by is not None and "block_rm.py" in decision.by


async def test_a_stop_hook_block_makes_the_run_continue_once(tmp_path: Path) -> None:
    cmd = script(
        tmp_path,
        "tests_first",
        """
        payload = json.loads(sys.stdin.read())
        if not payload["stop_hook_active"]:
            print(json.dumps({"decision": "block", "reason": "run the tests"}))
    """,
    )
    file = settings(tmp_path, {"Stop": [group(cmd)]})
    run, model = agent(tmp_path, file, reply("done?"), reply("tests pass, done"))
    result = await run.run("fix it")
    model.assert_consumed()
    assert result.output == "tests pass, done"
    assert model.calls[1].last_message == "run the tests"


async def test_the_payload_is_one_compact_line_with_claude_code_fields(tmp_path: Path) -> None:
    record = tmp_path / "stdin.jsonl"
    cmd = script(tmp_path, "record", RECORD_STDIN)
    file = settings(
        tmp_path,
        {
            "PreToolUse": [group(cmd, "Write")],
            "PostToolUse": [group(cmd, "Write")],
            "UserPromptSubmit": [group(cmd)],
            "Stop": [group(cmd)],
        },
    )
    os.environ["RECORD_TO"] = str(record)
    try:
        run, _ = agent(
            tmp_path, file, tool_call("Write", file_path="notes/a.txt", content="hi"), reply("done")
        )
        await run.run("write a note")
    finally:
        del os.environ["RECORD_TO"]
    lines = record.read_text().splitlines()
    assert all("\n" not in line and ": " not in line for line in lines)  # compact, one line
    prompt, pre, post, stop = (json.loads(line) for line in lines)
    assert prompt["hook_event_name"] == "UserPromptSubmit" and prompt["prompt"] == "write a note"
    assert pre["tool_name"] == "Write" and pre["permission_mode"] == "default"
    assert pre["tool_input"]["file_path"] == str(tmp_path.resolve() / "notes" / "a.txt")
    assert pre["tool_use_id"] == post["tool_use_id"]
    assert post["tool_response"] == "wrote 2 bytes to notes/a.txt"
    assert stop["stop_hook_active"] is False and stop["last_assistant_message"] == "done"
    for payload in (prompt, pre, post, stop):
        assert payload["cwd"] == str(tmp_path.resolve())
        assert payload["session_id"] and payload["transcript_path"].endswith(".jsonl")


async def test_the_transcript_is_written_before_hooks_read_it(tmp_path: Path) -> None:
    cmd = script(
        tmp_path,
        "read_transcript",
        """
        payload = json.loads(sys.stdin.read())
        lines = [json.loads(l) for l in open(payload["transcript_path"])]
        uses = [b for l in lines if l["type"] == "assistant"
                for b in l["message"]["content"] if b["type"] == "tool_use"]
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
              "additionalContext": f"transcript has {len(lines)} lines, {len(uses)} tool uses"}}))
    """,
    )
    file = settings(tmp_path, {"PreToolUse": [group(cmd)]})
    run, model = agent(tmp_path, file, tool_call("Bash", command="ls"), reply("ok"))
    await run.run("list")
    assert "transcript has 2 lines, 1 tool uses" in (model.calls[1].last_message or "")


async def test_transcript_lines_are_compact_as_claude_code_writes_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Loop plugins' Stop hooks grep the transcript for `"role":"assistant"`."""
    cmd = script(
        tmp_path,
        "grep_transcript",
        """
        payload = json.loads(sys.stdin.read())
        text = open(payload["transcript_path"]).read()
        found = text.count('"role":"assistant"')
        print(json.dumps({"systemMessage": f"{found} assistant lines"}))
    """,
    )
    file = settings(tmp_path, {"Stop": [group(cmd)]})
    run, _ = agent(tmp_path, file, tool_call("Bash", command="ls"), reply("ok"))
    await run.run("list")
    assert "Stop hook: 2 assistant lines" in caplog.messages


async def test_updated_input_rewrites_the_call_and_context_reaches_the_model(
    tmp_path: Path,
) -> None:
    cmd = script(
        tmp_path,
        "dry_run",
        """
        payload = json.loads(sys.stdin.read())
        command = payload["tool_input"]["command"]
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
              "permissionDecision": "allow",
              "updatedInput": {"command": command + " --dry-run"},
              "additionalContext": "ran as a dry run"}}))
    """,
    )
    file = settings(tmp_path, {"PreToolUse": [group(cmd, "Bash")]})
    run, _model = agent(tmp_path, file, tool_call("Bash", command="git push"), reply("ok"))
    result = await run.run("push")
    [call] = result.tool_calls
    assert call.result.content.startswith("ran: git push --dry-run")
    assert "ran as a dry run" in call.result.content


async def test_ask_goes_to_the_approver(tmp_path: Path) -> None:
    cmd = script(
        tmp_path,
        "ask",
        """
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
              "permissionDecision": "ask", "permissionDecisionReason": "deploys are sensitive"}}))
    """,
    )
    file = settings(tmp_path, {"PreToolUse": [group(cmd, "Bash")]})
    questions: list[h.Question] = []
    run, _ = agent(tmp_path, file, tool_call("Bash", command="deploy"), reply("ok"))
    result = await run.run("go", approver=lambda q: questions.append(q) or False)
    assert [q.question for q in questions] == ["deploys are sensitive"]
    assert result.tool_calls[0].blocked


async def test_a_permission_request_hook_answers_for_the_human(tmp_path: Path) -> None:
    ask = script(
        tmp_path,
        "ask",
        """
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
              "permissionDecision": "ask"}}))
    """,
    )
    allow = script(
        tmp_path,
        "allow",
        """
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
              "decision": {"behavior": "allow", "updatedInput": {"command": "ls -la"}}}}))
    """,
    )
    file = settings(
        tmp_path, {"PreToolUse": [group(ask, "Bash")], "PermissionRequest": [group(allow, "Bash")]}
    )
    run, _ = agent(tmp_path, file, tool_call("Bash", command="ls"), reply("ok"))
    result = await run.run("go", approver=lambda q: pytest.fail("nobody should be asked"))
    assert result.tool_calls[0].result.content == "ran: ls -la"


async def test_post_tool_use_block_is_feedback_and_output_can_be_replaced(tmp_path: Path) -> None:
    cmd = script(
        tmp_path,
        "lint",
        """
        print(json.dumps({"decision": "block", "reason": "lint: missing newline",
              "hookSpecificOutput": {"hookEventName": "PostToolUse",
                                     "updatedToolOutput": "wrote (checked)"}}))
    """,
    )
    file = settings(tmp_path, {"PostToolUse": [group(cmd, "Write|Edit")]})
    run, _model = agent(tmp_path, file, tool_call("Write", file_path="a", content="x"), reply("ok"))
    result = await run.run("go")
    [call] = result.tool_calls
    assert not call.blocked
    assert call.result.content.startswith("wrote (checked)")
    assert "lint: missing newline" in call.result.content


async def test_a_prompt_blocked_by_user_prompt_submit_never_reaches_the_model(
    tmp_path: Path,
) -> None:
    cmd = script(
        tmp_path,
        "secrets",
        """
        if "password" in json.loads(sys.stdin.read())["prompt"]:
            print("no secrets in prompts", file=sys.stderr); sys.exit(2)
    """,
    )
    file = settings(tmp_path, {"UserPromptSubmit": [group(cmd)]})
    run, model = agent(tmp_path, file)
    result = await run.run("my password is hunter2")
    assert (result.status, result.stop_reason) == ("stopped", "guard")
    assert "no secrets in prompts" in (result.stop_message or "")
    assert model.calls == []


async def test_continue_false_ends_the_run(tmp_path: Path) -> None:
    cmd = script(
        tmp_path,
        "halt",
        """
        print(json.dumps({"continue": False, "stopReason": "maintenance window"}))
    """,
    )
    file = settings(tmp_path, {"PostToolUse": [group(cmd)]})
    run, model = agent(tmp_path, file, tool_call("Bash", command="ls"), reply("unreached"))
    result = await run.run("go")
    assert result.status == "stopped" and "maintenance window" in (result.stop_message or "")
    assert model.remaining == 1


async def test_a_timed_out_pre_tool_hook_fails_open_by_default_and_closed_when_asked(
    tmp_path: Path,
) -> None:
    cmd = script(tmp_path, "slow", "import time\ntime.sleep(5)\n")
    file = settings(tmp_path, {"PreToolUse": [group(cmd, "Bash", timeout=0.2)]})
    run, _ = agent(tmp_path, file, tool_call("Bash", command="ls"), reply("ok"))
    assert (await run.run("go")).tool_calls[0].result.content == "ran: ls"
    strict, _ = agent(
        tmp_path, file, tool_call("Bash", command="ls"), reply("ok"), on_failure_default="block"
    )
    assert (await strict.run("go")).tool_calls[0].blocked


async def test_managed_hooks_run_in_the_policy_tier(tmp_path: Path) -> None:
    managed = tmp_path / "managed"
    managed.mkdir()
    cmd = script(tmp_path, "deny_all", "print('managed says no', file=sys.stderr); sys.exit(2)\n")
    settings(managed, {"PreToolUse": [group(cmd)]}, name="managed-settings.json")
    from hookagent.claude._bridge import ClaudeHooks
    from hookagent.claude._sources import discover

    loaded = discover(tmp_path, home=tmp_path / "home", managed_dir=managed)
    hooks = list(ClaudeHooks(loaded, ClaudeHookOptions(project_dir=str(tmp_path))).hooks())
    assert {(hook.id, hook.tier) for hook in hooks if hook.point is h.BEFORE_TOOL} == {
        ("claude-managed:PreToolUse", "policy")
    }


async def test_one_command_matched_twice_runs_once(tmp_path: Path) -> None:
    record = tmp_path / "runs.txt"
    cmd = script(tmp_path, "count", f"open({str(record)!r}, 'a').write('x')\n")
    file = settings(tmp_path, {"PreToolUse": [group(cmd, "Bash"), group(cmd, "Ba.*")]})
    run, _ = agent(tmp_path, file, tool_call("Bash", command="ls"), reply("ok"))
    await run.run("go")
    assert record.read_text() == "x"


async def test_a_stop_hook_that_always_blocks_is_bounded_by_the_budget(tmp_path: Path) -> None:
    record = tmp_path / "active.txt"
    cmd = script(
        tmp_path,
        "never_done",
        f"""
        payload = json.loads(sys.stdin.read())
        open({str(record)!r}, "a").write(str(payload["stop_hook_active"]) + "\\n")
        print(json.dumps({{"decision": "block", "reason": "keep going"}}))
    """,
    )
    file = settings(tmp_path, {"Stop": [group(cmd)]})
    model = ScriptedModel([reply(f"try {i}") for i in range(3)])
    opts = ClaudeHookOptions(project_dir=str(tmp_path))
    run = (
        h.AgentBuilder()
        .model(model)
        .budgets(stop_blocks=2)
        .with_settings(file, project_dir=tmp_path, options=opts)
        .build()
    )
    result = await run.run("go")
    model.assert_consumed()
    assert result.stop_reason == "retry_limit"
    assert record.read_text().split() == ["False", "True", "True"]

"""Reading one handler's answer per event (CLAUDE_HOOKS §7, §5.4, §10).

Answers come from real hooks run by the real runner: python and node scripts in `scripts/`
(guards, gates, rewriters), the public traps in plain sh, and `emit`, a one-line sh hook that
prints and exits as a test tells it.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any, Literal

import pytest

from hookagent.claude._model import (
    Decision,
    HandlerSpec,
    HandlerVerdict,
    ProcessOutcome,
    SettingsSource,
)
from hookagent.claude._output import read_verdict
from hookagent.claude._runner import run_handler

SCRIPTS = Path(__file__).parent / "scripts"
PY = shlex.quote(sys.executable)
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

BASE = {"session_id": "sess-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/work"}
EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "PreToolUse": {"tool_name": "Bash", "tool_input": {"command": "make"}, "tool_use_id": "t1"},
    "PermissionRequest": {"tool_name": "Bash", "tool_input": {"command": "make"}},
    "PostToolUse": {
        "tool_name": "Write",
        "tool_input": {"file_path": "/work/a.py", "content": "x = 1\n"},
        "tool_response": {"filePath": "/work/a.py", "success": True},
        "tool_use_id": "t1",
    },
    "UserPromptSubmit": {"prompt": "fix the bug"},
    "Stop": {"stop_hook_active": False, "last_assistant_message": "Done."},
    "SessionStart": {"source": "startup"},
}


def payload(event: str, **fields: Any) -> dict[str, Any]:
    return {**BASE, "hook_event_name": event, **EVENT_FIELDS.get(event, {}), **fields}


def emit(stdout: str = "", *, stderr: str = "", exit: int = 0) -> str:
    """A plain sh hook that reads stdin, then prints and exits as told."""
    out, err = shlex.quote(stdout), shlex.quote(stderr)
    return f"cat >/dev/null; printf %s {out}; printf %s {err} >&2; exit {exit}"


def specific(event: str, **fields: Any) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, **fields}})


async def answer(
    event: str,
    command: str,
    *,
    stdin: dict[str, Any] | None = None,
    on_failure: Literal["continue", "block"] | None = None,
    run_async: bool = False,
    limit: float = 10.0,
    failure_default: Literal["continue", "block"] = "continue",
    text_cap: int = 10_000,
    spill_dir: str | None = None,
    env_file: str | None = None,
) -> HandlerVerdict:
    """Run `command` as a handler for `event`, then read its verdict."""
    handler = HandlerSpec(
        event=event,
        matcher=None,
        type="command",
        command=command,
        on_failure=on_failure,
        run_async=run_async,
        source=SettingsSource(path=".claude/settings.json", kind="project"),
        where=f"hooks.{event}[0].hooks[0]",
    )
    outcome = await run_handler(
        handler,
        stdin or payload(event),
        cwd=str(SCRIPTS),
        project_dir=str(SCRIPTS),
        env_file=env_file,
        timeout=limit,
        kill_grace=0.1,
    )
    return read_verdict(
        event,
        outcome,
        handler,
        text_cap=text_cap,
        failure_default=failure_default,
        spill_dir=spill_dir,
    )


# PreToolUse ---------------------------------------------------------------------------------

GUARD = f'{PY} "$CLAUDE_PROJECT_DIR/guard_bash.py"'


@pytest.mark.parametrize(
    ("command", "decision", "reason"),
    [
        ("rm -rf /", "deny", "rm -rf is not allowed here"),
        ("sudo apt install jq", "ask", "sudo needs a human"),
        ("deploy prod", "defer", "deploys wait for the release manager"),
        ("make test", "allow", "looks fine"),
        ("git push --force origin", "deny", "no force pushes"),  # legacy "block"
        ("ls -la", "allow", "read-only"),  # legacy "approve"
        ("curl https://x", "deny", "Network access is blocked: use the fetch tool"),  # exit 2
    ],
)
async def test_pre_tool_use_decisions(command: str, decision: str, reason: str) -> None:
    stdin = payload("PreToolUse", tool_input={"command": command})
    verdict = await answer("PreToolUse", GUARD, stdin=stdin)
    assert (verdict.decision, verdict.reason) == (decision, reason)
    assert verdict.error is None and not verdict.failed


async def test_pre_tool_use_updated_input_and_context() -> None:
    stdin = payload("PreToolUse", tool_input={"command": "grep foo src", "timeout": 5})
    verdict = await answer("PreToolUse", GUARD, stdin=stdin)
    assert verdict.decision == "allow"
    assert verdict.updated_input == {"command": "rg foo src"}  # replaces, never merges (§10.3)
    assert verdict.additional_context == "grep became rg"


@needs_node
@pytest.mark.parametrize(
    ("decision", "kept"),
    [("allow", True), ("ask", True), ("none", True), ("defer", False), ("deny", False)],
)
async def test_updated_input_counts_with_allow_ask_or_nothing(decision: str, kept: bool) -> None:
    command = f'node "$CLAUDE_PROJECT_DIR/rewrite_input.js" "make -j4" {decision}'
    verdict = await answer("PreToolUse", command)
    assert verdict.decision == decision
    assert verdict.updated_input == ({"command": "make -j4"} if kept else None)


@needs_node
async def test_node_hook_exit_2_with_json_allow_still_denies() -> None:
    allow = specific("PreToolUse", permissionDecision="allow", permissionDecisionReason="fine")
    command = f"node emit.js {shlex.quote(allow)} 2 'not on main'"
    verdict = await answer("PreToolUse", command)
    assert (verdict.decision, verdict.reason) == ("deny", "not on main")


async def test_exit_2_takes_the_json_reason_when_it_blocks() -> None:
    deny = specific("PreToolUse", permissionDecision="deny", permissionDecisionReason="json says")
    verdict = await answer("PreToolUse", emit(deny, stderr="stderr says", exit=2))
    assert (verdict.decision, verdict.reason) == ("deny", "json says")


async def test_exit_2_with_broken_json_still_blocks_and_reports() -> None:
    verdict = await answer("PreToolUse", emit('{"oops"', stderr="blocked", exit=2))
    assert (verdict.decision, verdict.reason) == ("deny", "blocked")
    assert verdict.error is not None and "not valid JSON" in verdict.error


async def test_exit_2_without_stderr_has_no_reason() -> None:
    verdict = await answer("PreToolUse", emit(exit=2))
    assert (verdict.decision, verdict.reason) == ("deny", None)


async def test_trap_ask_json_on_stderr_is_a_plain_deny() -> None:
    verdict = await answer("PreToolUse", "sh ask_on_stderr.sh")
    assert verdict.decision == "deny"
    assert verdict.reason is not None
    assert json.loads(verdict.reason)["hookSpecificOutput"]["permissionDecision"] == "ask"


async def test_trap_exit_1_blocks_nothing() -> None:
    verdict = await answer("PreToolUse", "sh exit1_block.sh")
    assert verdict.decision == "none"
    assert verdict.failed
    assert verdict.error == "BLOCKED: file exceeds 250 lines"  # the first stderr line


async def test_exit_1_with_a_valid_object_decides_alone() -> None:
    deny = specific("PreToolUse", permissionDecision="deny", permissionDecisionReason="no")
    verdict = await answer("PreToolUse", emit(deny, stderr="warning: x", exit=1))
    assert verdict == HandlerVerdict(decision="deny", reason="no")


async def test_exit_1_with_an_object_fails_where_json_does_not_decide() -> None:
    context = specific("SessionStart", additionalContext="ctx")
    verdict = await answer("SessionStart", emit(context, exit=1))
    assert verdict.failed and verdict.additional_context is None


async def test_missing_script_is_exit_127_and_a_failure() -> None:
    verdict = await answer("PreToolUse", '"$CLAUDE_PROJECT_DIR/no-such-hook.sh"')
    assert (verdict.decision, verdict.failed) == ("none", True)
    assert verdict.error is not None and "not found" in verdict.error


async def test_killed_by_a_signal() -> None:
    verdict = await answer("PreToolUse", "kill -KILL $$")
    assert verdict.failed and verdict.error == "killed by signal 9"


async def test_timeout_is_a_failure() -> None:
    verdict = await answer("PreToolUse", "sleep 5", limit=0.2)
    assert verdict == HandlerVerdict(failed=True, error="timed out after 0.2 s")


async def test_profile_noise_before_json_makes_it_plain_text() -> None:
    deny = specific("PreToolUse", permissionDecision="deny")
    verdict = await answer("PreToolUse", emit(f"Welcome back!\n{deny}"))
    assert verdict == HandlerVerdict()


# invalid output -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "stdout", "problem"),
    [
        ("PreToolUse", '{"decision": "block",', "not valid JSON"),
        ("UserPromptSubmit", "{not json}", "not valid JSON"),
        ("PreToolUse", '{"continue": NaN}', "not valid JSON"),
        ("PreToolUse", specific("PostToolUse", permissionDecision="deny"), "'PostToolUse'"),
        ("PreToolUse", '{"hookSpecificOutput": {"permissionDecision": "deny"}}', "missing"),
        ("PreToolUse", '{"decision": "allow"}', 'decision: expected "approve" or "block"'),
        ("Stop", '{"decision": "deny", "reason": "r"}', "decision"),
        ("PreToolUse", specific("PreToolUse", permissionDecision="maybe"), "permissionDecision"),
        ("PreToolUse", '{"continue": "no"}', "continue: expected a boolean"),
        ("Stop", '{"decision": "block", "reason": null}', "reason: expected a string"),
        ("PreCompact", specific("PreCompact", additionalContext="x"), "not accepted"),
        ("PermissionRequest", specific("PermissionRequest", decision={}), "behavior"),
    ],
)
async def test_invalid_output_is_ignored_whole_and_reported(
    event: str, stdout: str, problem: str
) -> None:
    verdict = await answer(event, emit(stdout))
    assert verdict.decision == "none"
    assert verdict.additional_context is None  # broken JSON never becomes context
    assert verdict.failed
    assert verdict.error is not None and problem in verdict.error


async def test_a_wrong_event_name_discards_the_universal_fields_too() -> None:
    output = {
        "systemMessage": "hi",
        "continue": False,
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "x"},
    }
    verdict = await answer("PreToolUse", emit(json.dumps(output)))
    assert (verdict.system_message, verdict.continue_, verdict.failed) == (None, True, True)


# plain text -----------------------------------------------------------------------------------


@pytest.mark.parametrize("event", ["UserPromptSubmit", "UserPromptExpansion", "SessionStart"])
async def test_plain_stdout_is_context_on_prompt_and_session_events(event: str) -> None:
    verdict = await answer(event, "sh context.sh")
    assert verdict == HandlerVerdict(additional_context="Current branch: main\nOpen issues: 3")


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse", "Stop", "Setup", "Notification"])
async def test_plain_stdout_is_ignored_elsewhere(event: str) -> None:
    assert await answer(event, "sh context.sh") == HandlerVerdict()


@pytest.mark.parametrize("stdout", ['["a", "b"]', '"just a string"', "42"])
async def test_json_that_is_not_an_object_is_plain_text(stdout: str) -> None:
    assert await answer("UserPromptSubmit", emit(stdout)) == HandlerVerdict(
        additional_context=stdout
    )
    assert await answer("PreToolUse", emit(stdout)) == HandlerVerdict()


# block-style events -----------------------------------------------------------------------------


async def test_stop_block_then_release() -> None:
    gate = f"{PY} stop_gate.py"
    verdict = await answer("Stop", gate)
    assert (verdict.decision, verdict.reason) == ("block", "Run the test suite before stopping.")
    again = await answer("Stop", gate, stdin=payload("Stop", stop_hook_active=True))
    assert again == HandlerVerdict()


async def test_stop_additional_context() -> None:
    verdict = await answer("Stop", emit(specific("Stop", additionalContext="also lint")))
    assert verdict == HandlerVerdict(additional_context="also lint")


@needs_node
@pytest.mark.parametrize("name", ["updatedToolOutput", "updatedMCPToolOutput"])
async def test_post_tool_use_feedback_context_and_output(name: str) -> None:
    verdict = await answer("PostToolUse", f"node post_feedback.js {name}")  # pretty-printed JSON
    assert (verdict.decision, verdict.reason) == ("block", "lint failed on /work/a.py")
    assert verdict.additional_context == "run the formatter"
    assert verdict.updated_output == {"filePath": "/work/a.py", "success": True, "note": "redacted"}


@pytest.mark.parametrize(
    ("event", "decision"),
    [
        ("PreToolUse", "deny"),
        ("Stop", "block"),
        ("SubagentStop", "block"),
        ("UserPromptSubmit", "block"),
        ("PostToolUse", "block"),
        ("PostToolUseFailure", "block"),
        ("PostToolBatch", "block"),
        ("PreCompact", "block"),
        ("TaskCreated", "block"),
    ],
)
async def test_exit_2_blocks_with_stderr(event: str, decision: Decision) -> None:
    verdict = await answer(event, emit(stderr="  not yet\n", exit=2))
    assert verdict == HandlerVerdict(decision=decision, reason="not yet")


@pytest.mark.parametrize(
    "event", ["Notification", "PermissionDenied", "InstructionsLoaded", "StopFailure"]
)
async def test_exit_2_is_ignored_on_observing_events(event: str) -> None:
    assert await answer(event, emit(stderr="nope", exit=2)) == HandlerVerdict()


@pytest.mark.parametrize("event", ["SessionStart", "SubagentStart", "SessionEnd", "PostCompact"])
async def test_exit_2_is_a_notice_for_the_user_elsewhere(event: str) -> None:
    verdict = await answer(event, emit(stderr="nope", exit=2))
    assert verdict == HandlerVerdict(error="nope")


# universal fields -------------------------------------------------------------------------------


async def test_continue_false_stop_reason_and_system_message() -> None:
    output = {"continue": False, "stopReason": "budget spent", "systemMessage": "heads up"}
    verdict = await answer("PostToolUse", emit(json.dumps(output)))
    assert verdict == HandlerVerdict(
        continue_=False, stop_reason="budget spent", system_message="heads up"
    )


@pytest.mark.parametrize("event", ["PreCompact", "Notification", "SessionEnd", "ConfigChange"])
async def test_events_that_discard_the_universal_fields(event: str) -> None:
    output = {"continue": False, "stopReason": "x", "systemMessage": "y"}
    verdict = await answer(event, emit(json.dumps(output)))
    assert (verdict.continue_, verdict.stop_reason, verdict.system_message) == (True, None, None)


async def test_notification_keeps_only_the_terminal_sequence() -> None:
    output = {"terminalSequence": "\u0007", "systemMessage": "y"}
    verdict = await answer("Notification", emit(json.dumps(output)))
    assert verdict == HandlerVerdict(extra={"terminalSequence": "\u0007"})


# SessionStart, PermissionRequest -----------------------------------------------------------------


@needs_node
async def test_session_start_fields_and_env_file(tmp_path: Path) -> None:
    env_file = tmp_path / "env.sh"
    env_file.touch()
    verdict = await answer("SessionStart", "node session_start.js", env_file=str(env_file))
    assert verdict.additional_context == "This repo uses uv."
    assert verdict.system_message == "session startup"
    assert verdict.extra == {
        "initialUserMessage": "Summarise open TODOs",
        "sessionTitle": "triage",
        "watchPaths": ["pyproject.toml"],
    }
    assert env_file.read_text() == "export HOOKED=1\n"


async def test_permission_request_allow_with_input_and_rules() -> None:
    verdict = await answer("PermissionRequest", f"{PY} permission_request.py")
    assert verdict.decision == "allow"
    assert verdict.updated_input == {"command": "make --dry-run"}
    assert verdict.extra == {
        "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash"}]}]
    }


async def test_permission_request_deny_with_message_and_interrupt() -> None:
    stdin = payload("PermissionRequest", tool_name="Write", tool_input={"file_path": "/a"})
    verdict = await answer("PermissionRequest", f"{PY} permission_request.py", stdin=stdin)
    assert verdict == HandlerVerdict(
        decision="deny", reason="only Bash is pre-approved", extra={"interrupt": True}
    )


async def test_permission_request_ignores_exit_2_and_permission_decision() -> None:
    assert await answer("PermissionRequest", emit(stderr="no", exit=2)) == HandlerVerdict()
    stdout = specific("PermissionRequest", permissionDecision="deny")
    assert await answer("PermissionRequest", emit(stdout)) == HandlerVerdict()


# onFailure --------------------------------------------------------------------------------------


async def test_on_failure_block_turns_exit_1_into_a_deny() -> None:
    verdict = await answer("PreToolUse", "sh exit1_block.sh", on_failure="block")
    assert verdict.decision == "deny"
    assert verdict.reason == "BLOCKED: file exceeds 250 lines\nsplit it first"
    assert verdict.failed and verdict.error is not None


async def test_on_failure_block_on_timeout_and_broken_json() -> None:
    timed_out = await answer("PreToolUse", "sleep 5", limit=0.2, on_failure="block")
    assert (timed_out.decision, timed_out.reason) == ("deny", "timed out after 0.2 s")
    broken = await answer("UserPromptSubmit", emit("{oops"), on_failure="block")
    assert broken.decision == "block"
    assert broken.reason is not None and "not valid JSON" in broken.reason


async def test_on_failure_block_denies_a_permission_request() -> None:
    verdict = await answer("PermissionRequest", emit(stderr="crash", exit=1), on_failure="block")
    assert (verdict.decision, verdict.reason) == ("deny", "crash")


@pytest.mark.parametrize("event", ["Stop", "SubagentStop", "TaskCompleted", "TeammateIdle"])
async def test_on_failure_block_is_ignored_on_stop_events(event: str) -> None:
    verdict = await answer(event, emit(stderr="crash", exit=1), on_failure="block")
    assert (verdict.decision, verdict.failed) == ("none", True)


async def test_on_failure_block_is_ignored_on_async_hooks() -> None:
    verdict = await answer(
        "PreToolUse", emit(stderr="crash", exit=1), on_failure="block", run_async=True
    )
    assert verdict.decision == "none"


async def test_failure_default_applies_only_to_unmarked_handlers() -> None:
    failing = emit(stderr="crash", exit=1)
    unmarked = await answer("PreToolUse", failing, failure_default="block")
    assert unmarked.decision == "deny"
    marked = await answer("PreToolUse", failing, failure_default="block", on_failure="continue")
    assert marked.decision == "none"


async def test_on_failure_block_on_a_notice_event_stays_a_notice() -> None:
    verdict = await answer("SessionStart", emit(stderr="crash", exit=1), on_failure="block")
    assert verdict == HandlerVerdict(failed=True, error="crash")


async def test_a_start_failure_is_a_failure() -> None:
    handler = HandlerSpec(
        event="PreToolUse",
        matcher=None,
        type="command",
        command="/no/such/binary",
        args=(),
        on_failure="block",
        source=SettingsSource(path="s.json", kind="user"),
        where="hooks.PreToolUse[0].hooks[0]",
    )
    outcome = await run_handler(handler, payload("PreToolUse"), cwd="/", project_dir="/")
    verdict = read_verdict("PreToolUse", outcome, handler)
    assert verdict.decision == "deny"
    assert verdict.error is not None and "/no/such/binary" in verdict.error


# caps -------------------------------------------------------------------------------------------


async def test_long_additional_context_is_previewed_and_saved(tmp_path: Path) -> None:
    text = "".join(f"line {n}\n" for n in range(3000)).strip()
    stdout = specific("UserPromptSubmit", additionalContext=text)
    verdict = await answer("UserPromptSubmit", emit(stdout), text_cap=1000, spill_dir=str(tmp_path))
    saved = verdict.extra["overflow_files"]["additionalContext"]
    assert Path(saved).read_text() == text
    assert verdict.additional_context is not None
    assert verdict.additional_context.startswith(
        f"<persisted-output>\nUserPromptSubmit hook additionalContext too large ({len(text):,} "
        f"characters). Full output saved to: {saved}\nPreview (first 1,000 characters):\n"
        f"{text[:1000]}\n</persisted-output>"
    )
    assert len(verdict.additional_context) < 1000 + 300


async def test_long_plain_stdout_and_system_message_are_capped(tmp_path: Path) -> None:
    text = "x" * 5000
    plain = await answer("SessionStart", emit(text), text_cap=100, spill_dir=str(tmp_path))
    assert plain.additional_context is not None
    assert "SessionStart hook stdout too large (5,000 characters)" in plain.additional_context
    assert "(first 100 characters):\n" + "x" * 100 + "\n</persisted-output>" in (
        plain.additional_context
    )
    warning = await answer(
        "Stop", emit(json.dumps({"systemMessage": text})), text_cap=100, spill_dir=str(tmp_path)
    )
    assert warning.system_message is not None and len(warning.system_message) < 100 + 300
    assert Path(warning.extra["overflow_files"]["systemMessage"]).read_text() == text


def test_stdout_spilled_by_the_runner_is_the_saved_copy(tmp_path: Path) -> None:
    handler = HandlerSpec(
        event="UserPromptSubmit",
        matcher=None,
        type="command",
        command="cat big.txt",
        source=SettingsSource(path="s.json", kind="user"),
        where="hooks.UserPromptSubmit[0].hooks[0]",
    )
    outcome = ProcessOutcome(exit_code=0, stdout="y" * 500, stdout_file="/spill/full.txt")
    verdict = read_verdict("UserPromptSubmit", outcome, handler, text_cap=100)
    assert verdict.extra == {"overflow_files": {"stdout": "/spill/full.txt"}}

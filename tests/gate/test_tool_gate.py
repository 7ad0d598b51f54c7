"""`ToolGate`: hookagent's tool hooks around plain functions, outside hookagent's loop."""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.claude._options import ClaudeHookOptions
from hookagent.gate import GateResult, ToolGate
from hookagent.tools._base import ToolResult


def shell(command: str, cwd: str = ".") -> str:
    """A plain function standing in for any tool: it records what it ran."""
    RAN.append(command)
    return f"ran: {command}"


RAN: list[str] = []


@pytest.fixture(autouse=True)
def _fresh() -> None:
    RAN.clear()


def collector(into: list[Any], value: Any = None) -> Any:
    """A hook or approver that keeps what it is given and answers `value`."""

    def keep(item: Any) -> Any:
        into.append(item)
        return value

    return keep


def no_rm(event: h.ToolCallEvent) -> h.HookResult | None:
    if "rm " in event.args.get("command", ""):
        return h.HookResult.block("rm is not allowed")
    return None


def ask_for_sudo(event: h.ToolCallEvent) -> h.HookResult | None:
    command = event.args.get("command", "")
    if command.startswith("sudo "):
        return h.HookResult.ask(f"Run {command!r}?", options=("yes", "no"))
    return None


# -- before_tool: block, rewrite, ask ---------------------------------------------------------
async def test_a_block_skips_the_function_and_gives_the_reason_as_an_error_result() -> None:
    gate = ToolGate().on(h.BEFORE_TOOL, no_rm)
    result = await gate.call("shell", {"command": "rm -rf /"}, execute=shell)
    assert RAN == []
    assert result.blocked and not result.ok and result.attempts == 0
    assert result.result.is_error
    assert result.result.content == "Tool call 'shell' was blocked by user:no_rm: rm is not allowed"
    assert result.value == result.result.content
    [decision] = result.decisions
    assert (decision.point, decision.outcome, decision.hook) == (
        "before_tool",
        "block",
        "user:no_rm",
    )
    assert decision.call_id == result.invocation_id


async def test_an_allowed_call_runs_and_gives_the_functions_own_value() -> None:
    gate = ToolGate().on(h.BEFORE_TOOL, no_rm)
    result = await gate.call("shell", {"command": "ls"}, execute=shell)
    assert RAN == ["ls"] and result.ok and result.attempts == 1
    assert result.value == "ran: ls" and result.result == ToolResult.of("ran: ls")
    assert list(result.decisions) == []  # no hook voted: nothing to record


async def test_before_tool_hooks_rewrite_the_arguments_the_function_gets() -> None:
    def use_rg(event: h.ToolCallEvent) -> h.HookResult | None:
        command = event.args["command"]
        if command.startswith("grep "):
            return h.HookResult.modify(args={**event.args, "command": "rg " + command[5:]})
        return None

    gate = ToolGate().on(h.BEFORE_TOOL, use_rg).on(h.BEFORE_TOOL, no_rm)
    result = await gate.call("shell", {"command": "grep -n todo", "cwd": "/src"}, execute=shell)
    assert RAN == ["rg -n todo"]
    assert dict(result.args) == {"command": "rg -n todo", "cwd": "/src"}
    [decision] = result.decisions
    assert decision.outcome == "modify" and decision.hook == "user:use_rg"
    assert decision.votes[0].changes["args"] == {
        "command": {"before": "grep -n todo", "after": "rg -n todo"}
    }


async def test_an_approved_ask_runs_the_call() -> None:
    questions: list[h.Question] = []

    def approver(question: h.Question) -> h.Answer:
        questions.append(question)
        return h.Answer.approve("looks fine")

    gate = ToolGate(approver=approver).on(h.BEFORE_TOOL, ask_for_sudo)
    result = await gate.call("shell", {"command": "sudo ls"}, execute=shell, invocation_id="call-7")
    assert RAN == ["sudo ls"] and result.ok
    [q] = questions
    assert (q.point, q.hook, q.tool_name, q.call_id) == (
        "before_tool",
        "user:ask_for_sudo",
        "shell",
        "call-7",
    )
    assert dict(q.args or {}) == {"command": "sudo ls"} and q.options == ("yes", "no")
    assert q.run_id == gate.run_id
    [decision] = result.decisions
    assert decision.outcome == "ask" and decision.answer == "approved: looks fine"


async def test_an_async_approver_may_approve_with_a_bool() -> None:
    async def approver(question: h.Question) -> bool:
        await asyncio.sleep(0)
        return True

    gate = ToolGate(approver=approver).on(h.BEFORE_TOOL, ask_for_sudo)
    result = await gate.call("shell", {"command": "sudo ls"}, execute=shell)
    assert result.ok and RAN == ["sudo ls"]


async def test_a_denied_ask_blocks_the_call() -> None:
    gate = ToolGate(approver=lambda q: h.Answer.deny("not today")).on(h.BEFORE_TOOL, ask_for_sudo)
    result = await gate.call("shell", {"command": "sudo reboot"}, execute=shell)
    assert RAN == [] and result.blocked
    assert "not today" in result.result.content
    [decision] = result.decisions
    assert decision.outcome == "block" and decision.hook == "user:ask_for_sudo"
    assert decision.answer == "denied by approver: not today"


async def test_an_ask_without_an_approver_is_denied() -> None:
    gate = ToolGate().on(h.BEFORE_TOOL, ask_for_sudo)
    result = await gate.call("shell", {"command": "sudo reboot"}, execute=shell)
    assert RAN == [] and result.blocked
    assert "no approver" in result.result.content
    assert result.decisions[0].answer is not None
    assert result.decisions[0].answer.startswith("denied by nobody")


async def test_a_permission_request_hook_answers_for_the_human_and_may_rewrite() -> None:
    def dry_run(event: h.PermissionEvent) -> h.HookResult:
        args = dict(event.question.args or {})
        answer = h.Answer(
            approved=True,
            reason="dry runs are fine",
            updated_args={**args, "command": "sudo -n ls"},
        )
        return h.HookResult.modify(answer=answer)

    asked: list[h.Question] = []
    gate = (
        ToolGate(approver=collector(asked, False))
        .on(h.BEFORE_TOOL, ask_for_sudo)
        .on(h.PERMISSION_REQUEST, dry_run, match="shell")
    )
    result = await gate.call("shell", {"command": "sudo ls"}, execute=shell)
    assert asked == []  # the hook answered: nobody was asked
    assert RAN == ["sudo -n ls"] and dict(result.args) == {"command": "sudo -n ls"}
    points = [(d.point, d.outcome, d.hook) for d in result.decisions]
    assert points == [
        ("permission_request", "modify", "user:dry_run"),
        ("before_tool", "ask", "user:ask_for_sudo"),
    ]


async def test_a_notification_hook_hears_of_a_question_for_the_human() -> None:
    heard: list[h.NotificationEvent] = []
    gate = (
        ToolGate(approver=lambda q: True)
        .on(h.BEFORE_TOOL, ask_for_sudo)
        .on(h.NOTIFICATION, collector(heard), kind="observer")
    )
    await gate.call("shell", {"command": "sudo ls"}, execute=shell)
    [note] = heard
    assert note.kind == "permission_prompt" and note.message == "Run 'sudo ls'?"


async def test_a_stop_blocks_the_call_and_tells_the_caller_to_end_its_run() -> None:
    gate = ToolGate().on(h.BEFORE_TOOL, lambda e: h.HookResult.stop("budget spent"), name="budget")
    result = await gate.call("shell", {"command": "ls"}, execute=shell)
    assert RAN == [] and result.blocked and result.stopped
    assert result.stop_reason == "hook_stop"
    assert result.stop_message == "budget spent (hook user:budget at before_tool)"


async def test_hook_context_rides_next_to_the_result_as_in_an_agent() -> None:
    gate = ToolGate().on(h.BEFORE_TOOL, lambda e: h.HookResult.context("mind the cwd"), name="hint")
    result = await gate.call("shell", {"command": "ls"}, execute=shell)
    assert result.contexts == ("mind the cwd",)
    assert result.result.content == (
        "ran: ls\n\n<system-reminder>\nmind the cwd\n</system-reminder>"
    )
    assert result.value == result.result.content  # hooks had a say: the text for the model


async def test_matchers_pick_the_tools_a_hook_guards() -> None:
    gate = ToolGate().on(h.BEFORE_TOOL, no_rm, match="Bash|shell")
    other = await gate.call("other", {"command": "rm x"}, execute=shell)
    guarded = await gate.call("shell", {"command": "rm x"}, execute=shell)
    assert not other.blocked and guarded.blocked


async def test_a_guard_that_overruns_its_timeout_fails_closed() -> None:
    async def slow(event: h.ToolCallEvent) -> None:
        await asyncio.sleep(5)

    gate = ToolGate().on(h.BEFORE_TOOL, slow, timeout=0.05)
    result = await gate.call("shell", {"command": "ls"}, execute=shell)
    assert RAN == [] and result.blocked
    [decision] = result.decisions
    assert decision.outcome == "block" and decision.votes[0].error == "timed out"
    assert "timed out after 0.05 s" in (decision.reason or "")


# -- the function and after_tool ------------------------------------------------------------
async def test_an_exception_becomes_an_error_result_that_after_tool_hooks_see() -> None:
    seen: list[ToolResult] = []

    def boom(command: str) -> str:
        raise ValueError("disk full")

    gate = ToolGate().on(
        h.AFTER_TOOL, lambda e: collector(seen)(e.result), name="keep", kind="observer"
    )
    result = await gate.call("shell", {"command": "ls"}, execute=boom)
    assert result.result == ToolResult.error("Tool 'shell' failed: ValueError: disk full")
    assert isinstance(result.error, ValueError) and not result.blocked and not result.ok
    assert seen == [result.result]


async def test_raise_errors_lets_the_exception_out_after_after_tool_hooks_ran() -> None:
    seen: list[str] = []

    def boom(command: str) -> str:
        raise ValueError("disk full")

    gate = ToolGate().on(h.AFTER_TOOL, lambda e: collector(seen)(e.result.content), name="keep")
    with pytest.raises(ValueError, match="disk full"):
        await gate.call("shell", {"command": "ls"}, execute=boom, raise_errors=True)
    assert seen == ["Tool 'shell' failed: ValueError: disk full"]


async def test_after_tool_hooks_may_replace_the_result() -> None:
    def redact(event: h.ToolResultEvent) -> h.HookResult:
        return h.HookResult.modify(result=ToolResult.of(event.result.content.upper()))

    gate = ToolGate().on(h.AFTER_TOOL, redact)
    result = await gate.call("shell", {"command": "ls"}, execute=shell)
    assert result.result.content == "RAN: LS" and result.value == "RAN: LS"
    [decision] = result.decisions
    assert (decision.point, decision.outcome, decision.hook) == (
        "after_tool",
        "modify",
        "user:redact",
    )


async def test_after_tool_hooks_may_ask_for_a_retry() -> None:
    tries: list[int] = []

    async def flaky(command: str) -> dict[str, Any]:
        tries.append(1)
        return {"ok": len(tries) >= 2, "command": command}

    def until_ok(event: h.ToolResultEvent) -> h.HookResult | None:
        if not event.result.data["ok"]:
            return h.HookResult.retry(f"attempt {event.attempt} failed")
        return None

    gate = ToolGate().on(h.AFTER_TOOL, until_ok)
    result = await gate.call("shell", {"command": "ls"}, execute=flaky)
    assert result.attempts == 2 and result.value == {"ok": True, "command": "ls"}
    assert not result.stopped
    [decision] = result.decisions
    assert decision.outcome == "retry" and decision.reason == "attempt 1 failed"


async def test_retries_are_bounded_by_the_budget() -> None:
    gate = ToolGate().on(h.AFTER_TOOL, lambda e: h.HookResult.retry("never good"), name="picky")
    result = await gate.call("shell", {"command": "ls"}, execute=shell)
    assert result.attempts == 4 and len(RAN) == 4  # the first run and three retries
    assert result.stop_reason == "retry_limit"
    assert "more than 3 times" in (result.stop_message or "")
    once = ToolGate(retries=1).on(h.AFTER_TOOL, lambda e: h.HookResult.retry("no"))
    assert (await once.call("shell", {"command": "ls"}, execute=shell)).attempts == 2


# -- ids, records, sessions -----------------------------------------------------------------
async def test_each_call_has_an_invocation_id_in_its_events_and_records() -> None:
    seen: list[str] = []

    def record(event: h.ToolCallEvent) -> h.HookResult:
        seen.append(event.call_id)
        return h.HookResult.context("checked")

    gate = ToolGate().on(h.BEFORE_TOOL, record)
    first = await gate.call("shell", {"command": "a"}, execute=shell)
    second = await gate.call("shell", {"command": "b"}, execute=shell)
    given = await gate.call("shell", {"command": "c"}, execute=shell, invocation_id="inv-1")
    uuid.UUID(first.invocation_id)
    uuid.UUID(second.invocation_id)
    assert first.invocation_id != second.invocation_id and given.invocation_id == "inv-1"
    assert seen == [first.invocation_id, second.invocation_id, "inv-1"]
    assert [d.call_id for d in gate.decisions()] == seen


async def test_decisions_are_recorded_with_the_hooks_that_made_them() -> None:
    outcomes: list[str] = []

    def audit(event: h.ToolCallEvent, outcome: h.HookResult) -> None:
        outcomes.append(outcome.kind)

    gate = (
        ToolGate(run_id="gate-1")
        .on(h.BEFORE_TOOL, no_rm, tier="policy")
        .on(h.BEFORE_TOOL, lambda e: h.HookResult.context("noted"), name="note")
        .on(h.BEFORE_TOOL, audit, kind="observer", tier="audit", always=True)
        .on(h.AFTER_TOOL, lambda e: h.HookResult.retry("again") if e.attempt == 1 else None)
    )
    blocked = await gate.call("shell", {"command": "rm x"}, execute=shell)
    ran = await gate.call("shell", {"command": "ls"}, execute=shell)
    assert outcomes == ["block", "proceed"]  # the audit hook sees the final decision
    [block] = blocked.decisions
    assert block.run_id == "gate-1" and block.hook == "user:no_rm" and block.ran == 2
    assert [v.hook for v in block.votes] == ["user:no_rm"]  # `note` skipped after the block
    before, after = ran.decisions
    assert (before.outcome, before.contexts) == ("context", ("noted",))
    assert [v.hook for v in before.votes] == ["user:note"]
    assert (after.point, after.outcome, after.hook) == ("after_tool", "retry", "user:<lambda>")
    assert ran.attempts == 2
    log = gate.decisions()
    assert len(log) == 3 and log.by("no_rm") == [block]
    assert gate.state().decisions == [block, before, after]


async def test_concurrent_calls_each_get_their_own_decisions() -> None:
    async def slow_note(event: h.ToolCallEvent) -> h.HookResult:
        await asyncio.sleep(0.01 if event.args["command"] == "a" else 0)
        return h.HookResult.context(f"noted {event.args['command']}")

    gate = ToolGate().on(h.BEFORE_TOOL, slow_note)
    a, b = await asyncio.gather(
        gate.call("shell", {"command": "a"}, execute=shell, invocation_id="A"),
        gate.call("shell", {"command": "b"}, execute=shell, invocation_id="B"),
    )
    assert [d.call_id for d in a.decisions] == ["A"] and a.contexts == ("noted a",)
    assert [d.call_id for d in b.decisions] == ["B"] and b.contexts == ("noted b",)
    assert [d.call_id for d in gate.decisions()] == ["B", "A"]  # the session's, in order


async def test_a_session_is_a_run_hooks_can_read_across_calls() -> None:
    def count(event: h.ToolCallEvent) -> h.HookResult:
        calls = int(event.run.metadata.get("calls", 0)) + 1
        return h.HookResult.modify(metadata={"calls": calls, "session": event.run.session_id})

    gate = ToolGate(run_id="g").on(h.BEFORE_TOOL, count)
    await gate.call("shell", {"command": "a"}, execute=shell)
    await gate.call("shell", {"command": "b"}, execute=shell)
    other = await gate.call("shell", {"command": "c"}, execute=shell, session="s2")
    assert gate.state().metadata == {"calls": 2, "session": None}
    assert gate.state("s2").metadata == {"calls": 1, "session": "s2"}
    assert other.decisions[0].run_id == "g:s2"
    await gate.end("s2")
    assert gate.state("s2").metadata == {}  # ended: a new session of that name starts fresh


def test_only_tool_points_can_be_registered() -> None:
    gate = ToolGate()
    with pytest.raises(h.ConfigError, match="stop belongs to an agent's loop"):
        gate.on(h.STOP, lambda e: None)
    with pytest.raises(h.ConfigError, match="user_prompt"):
        gate.hook(h.make_hook(h.USER_PROMPT, lambda e: None))
    with pytest.raises(h.ConfigError, match="not a hook point"):
        gate.on("before_tool", lambda e: None)  # type: ignore[arg-type]
    assert gate.hooks == ()


def test_call_sync_runs_the_hooks_without_an_event_loop() -> None:
    gate = ToolGate().on(h.BEFORE_TOOL, no_rm)
    assert gate.call_sync("shell", {"command": "rm a"}, execute=shell).blocked
    assert gate.call_sync("shell", {"command": "ls"}, execute=shell).value == "ran: ls"


# -- wrap -------------------------------------------------------------------------------------
def test_wrap_gates_a_sync_function_and_keeps_its_signature() -> None:
    gate = ToolGate().on(h.BEFORE_TOOL, no_rm)
    gated = gate.wrap(shell)
    assert gated("ls") == "ran: ls"  # positional arguments are bound to their names
    assert gated(command="pwd", cwd="/") == "ran: pwd"
    assert gated("rm -rf /") == "Tool call 'shell' was blocked by user:no_rm: rm is not allowed"
    assert RAN == ["ls", "pwd"]
    assert gated.__name__ == "shell" and gated.__doc__ == shell.__doc__
    assert list(__import__("inspect").signature(gated).parameters) == ["command", "cwd"]
    [d] = gate.decisions()
    assert d.point == "before_tool" and d.outcome == "block"


async def test_wrap_gates_an_async_function_under_the_name_given() -> None:
    seen: list[tuple[str, Mapping[str, Any]]] = []

    def record(event: h.ToolCallEvent) -> None:
        seen.append((event.tool_name, dict(event.args)))

    gate = ToolGate().on(h.BEFORE_TOOL, record)

    @gate.wrap(name="fetch_page")
    async def fetch(url: str, *, retries: int = 10) -> dict[str, Any]:
        """Fetch a page."""
        await asyncio.sleep(0)
        return {"url": url, "retries": retries}

    assert asyncio.iscoroutinefunction(fetch)
    assert await fetch("https://example.com", retries=2) == {
        "url": "https://example.com",
        "retries": 2,
    }
    assert seen == [("fetch_page", {"url": "https://example.com", "retries": 2})]


async def test_a_wrapped_sync_function_works_where_an_event_loop_runs() -> None:
    gate = ToolGate().on(h.BEFORE_TOOL, no_rm)
    gated = gate.wrap(shell)
    assert gated("ls") == "ran: ls"  # e.g. a framework calling a sync tool from async code
    assert gated("rm x").startswith("Tool call 'shell' was blocked")


def test_wrap_refuses_functions_whose_arguments_have_no_names() -> None:
    def positional(a: int, /, *rest: int) -> int:
        return a

    with pytest.raises(h.ConfigError, match="a, rest"):
        ToolGate().wrap(positional)


def test_wrapped_results_replaced_by_hooks_are_the_text_for_the_model() -> None:
    gate = ToolGate().on(
        h.AFTER_TOOL, lambda e: h.HookResult.modify(result=ToolResult.of("[redacted]"))
    )

    @gate.wrap
    def secret() -> dict[str, str]:
        return {"key": "hunter2"}

    assert secret() == "[redacted]"


# -- Claude Code settings files ---------------------------------------------------------------
PRE_TOOL_USE = """
payload = json.load(sys.stdin)
with open(os.environ["GATE_RECORD"], "a") as out:
    out.write(json.dumps(payload) + "\\n")
command = payload["tool_input"].get("command", "")
if re.search(r"\\brm\\s+-rf\\b", command):
    print("rm -rf is not allowed here", file=sys.stderr)
    sys.exit(2)
if command.startswith("grep "):
    output = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "rg is faster",
            "updatedInput": {**payload["tool_input"], "command": "rg " + command[5:]},
        }
    }
    print(json.dumps(output))
if command.startswith("sudo "):
    output = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "sudo needs a human",
        }
    }
    print(json.dumps(output))
"""

PERMISSION_REQUEST = """
payload = json.load(sys.stdin)
decision = {"behavior": "allow", "updatedInput": {"command": "sudo -n true"}}
output = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
print(json.dumps(output))
"""


def write_script(folder: Path, name: str, body: str) -> str:
    path = folder / f"{name}.py"
    path.write_text("import json, os, re, sys\n" + textwrap.dedent(body), encoding="utf-8")
    return f"{sys.executable} {path}"


def settings_file(folder: Path, hooks: dict[str, list[dict[str, Any]]]) -> Path:
    path = folder / "settings.json"
    path.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    return path


def command_group(command: str, matcher: str) -> dict[str, Any]:
    return {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "payloads.jsonl"
    monkeypatch.setenv("GATE_RECORD", str(path))
    return path


async def test_a_settings_file_pre_tool_use_hook_around_a_plain_function(
    tmp_path: Path, record: Path
) -> None:
    guard = write_script(tmp_path, "guard", PRE_TOOL_USE)
    file = settings_file(tmp_path, {"PreToolUse": [command_group(guard, "Bash")]})
    async with ToolGate().with_settings(file, project_dir=tmp_path) as gate:

        def Bash(command: str) -> str:  # Claude Code's tool name
            return shell(command)

        denied = await gate.call("Bash", {"command": "rm -rf /"}, execute=Bash)
        rewritten = await gate.call(
            "Bash", {"command": "grep -rn TODO ."}, execute=Bash, invocation_id="toolu_01"
        )
        plain = await gate.call("Bash", {"command": "ls"}, execute=Bash)
        unmatched = await gate.call("Read", {"command": "rm -rf /"}, execute=Bash)

    assert RAN == ["rg -rn TODO .", "ls", "rm -rf /"]  # Read is not matched by "Bash"
    assert denied.blocked and "rm -rf is not allowed here" in denied.result.content
    [block] = denied.decisions
    assert (block.point, block.outcome, block.hook) == ("before_tool", "block", "claude:PreToolUse")
    assert block.by is not None and "guard.py" in block.by
    assert rewritten.value == "ran: rg -rn TODO ." and dict(rewritten.args) == {
        "command": "rg -rn TODO ."
    }
    [modify] = rewritten.decisions
    assert modify.outcome == "modify" and modify.hook == "claude:PreToolUse"
    assert plain.ok and list(plain.decisions) == [] and unmatched.ok
    payloads = [json.loads(line) for line in record.read_text().splitlines()]
    assert [p["tool_input"]["command"] for p in payloads] == ["rm -rf /", "grep -rn TODO .", "ls"]
    first = payloads[0]
    assert first["hook_event_name"] == "PreToolUse" and first["tool_name"] == "Bash"
    assert first["tool_use_id"] == denied.invocation_id
    assert payloads[1]["tool_use_id"] == "toolu_01"
    assert first["session_id"] == gate.run_id
    assert first["cwd"] == str(tmp_path.resolve())
    assert Path(first["transcript_path"]).is_file()


async def test_a_settings_file_ask_is_answered_by_its_permission_request_hook(
    tmp_path: Path, record: Path
) -> None:
    guard = write_script(tmp_path, "guard", PRE_TOOL_USE)
    allow = write_script(tmp_path, "allow", PERMISSION_REQUEST)
    file = settings_file(
        tmp_path,
        {
            "PreToolUse": [command_group(guard, "Bash")],
            "PermissionRequest": [command_group(allow, "Bash")],
            "Stop": [command_group(guard, "")],  # an agent-loop event: left out
        },
    )
    asked: list[h.Question] = []
    gate = ToolGate(approver=collector(asked, False)).with_settings(file, project_dir=tmp_path)
    assert sorted({hook.point.name for hook in gate.hooks}) == [
        "before_tool",
        "execution_end",
        "permission_request",
    ]
    result = await gate.call("Bash", {"command": "sudo reboot"}, execute=shell)
    await gate.aclose()
    assert asked == [] and RAN == ["sudo -n true"]
    assert [(d.point, d.outcome, d.hook) for d in result.decisions] == [
        ("permission_request", "modify", "claude:PermissionRequest"),
        ("before_tool", "ask", "claude:PreToolUse"),
    ]


def test_a_settings_file_hook_around_a_wrapped_sync_function(tmp_path: Path, record: Path) -> None:
    guard = write_script(tmp_path, "guard", PRE_TOOL_USE)
    file = settings_file(tmp_path, {"PreToolUse": [command_group(guard, "Bash")]})
    options = ClaudeHookOptions(project_dir=str(tmp_path))
    gate = ToolGate().with_settings(file, options=options)
    bash = gate.wrap(shell, name="Bash")
    assert bash("grep x") == "ran: rg x"
    assert "rm -rf is not allowed here" in bash("rm -rf /tmp/x")
    assert RAN == ["rg x"]


def test_the_result_type_is_exported() -> None:
    assert GateResult.__name__ == "GateResult"

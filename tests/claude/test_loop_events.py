"""Claude Code events of the loop itself, fired in real runs: PostToolBatch, StopFailure,
PermissionDenied, TaskCreated and TaskCompleted.

Each settings file runs a real Python hook script that records its stdin, so every test checks
the exact JSON the script received as well as what its answer did to the run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.approvals import Approvals, Rule
from hookagent.capabilities.planning import TASKS, TaskPlanning
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._translate import RETRY_NOTE
from hookagent.durable._answers import answer_json
from hookagent.store import MemoryStore
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call, turn

from .hookscripts import RECORD_STDIN, group, script, settings

COMMON = {"session_id", "transcript_path", "cwd", "hook_event_name", "permission_mode"}


@h.tool
def Bash(command: str) -> str:  # Claude Code's tool name
    """Pretend to run a shell command."""
    return f"ran: {command}"


@h.tool
def Read(file_path: str) -> str:
    """Pretend to read a file."""
    return f"read {file_path}"


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "stdin.jsonl"
    monkeypatch.setenv("RECORD_TO", str(path))
    return path


def received(record: Path) -> list[dict[str, Any]]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines() if line]


def hook(tmp_path: Path, name: str, then: str = "") -> str:
    """A script that records its stdin to $RECORD_TO, then runs `then`."""
    return script(tmp_path, name, RECORD_STDIN + then)


def answer(obj: dict[str, Any], code: int = 0) -> str:
    return f"print(json.dumps({obj!r}))\nsys.exit({code})\n"


def build(tmp_path: Path, hooks: dict[str, Any], model: h.Model, *capabilities: Any) -> h.Agent:
    file = settings(tmp_path, hooks)
    builder = h.AgentBuilder().model(model).tools(Bash, Read)
    for capability in capabilities:
        builder = builder.with_(capability)
    options = ClaudeHookOptions(project_dir=str(tmp_path))
    return builder.with_settings(file, project_dir=tmp_path, options=options).build()


# -- PostToolBatch ---------------------------------------------------------------------------

TWO_CALLS = turn(
    "",
    {"name": "Bash", "args": {"command": "ls"}, "id": "t1"},
    {"name": "Read", "args": {"file_path": "a.txt"}, "id": "t2"},
)


async def test_post_tool_batch_gets_the_step_s_calls_and_its_context_reaches_the_model(
    tmp_path: Path, record: Path
) -> None:
    said = {"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": "lint"}}
    cmd = hook(tmp_path, "batch", answer(said))
    model = ScriptedModel([TWO_CALLS, reply("done")])
    result = await build(tmp_path, {"PostToolBatch": [group(cmd)]}, model).run("go")
    model.assert_consumed()
    assert result.output == "done"
    [payload] = received(record)  # once per step with calls; not after the answer
    assert set(payload) == COMMON | {"tool_calls"}
    assert payload["hook_event_name"] == "PostToolBatch"
    assert payload["tool_calls"] == [
        {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1",
         "tool_response": "ran: ls"},
        {"tool_name": "Read", "tool_input": {"file_path": str(tmp_path / "a.txt")},
         "tool_use_id": "t2", "tool_response": "read a.txt"},
    ]  # fmt: skip
    assert model.calls[1].last_message == "<system-reminder>\nlint\n</system-reminder>"


@pytest.mark.parametrize(
    "then",
    [
        answer({"decision": "block", "reason": "too many calls"}),
        "print('too many calls', file=sys.stderr)\nsys.exit(2)\n",
        answer({"continue": False, "stopReason": "too many calls"}),
    ],
    ids=["decision-block", "exit-2", "continue-false"],
)
async def test_post_tool_batch_can_stop_the_loop_before_the_next_model_call(
    tmp_path: Path, record: Path, then: str
) -> None:
    cmd = hook(tmp_path, "batch", then)
    model = ScriptedModel([TWO_CALLS, reply("never asked")])
    result = await build(tmp_path, {"PostToolBatch": [group(cmd)]}, model).run("go")
    assert len(model.calls) == 1
    assert result.status == "stopped"
    assert "too many calls" in (result.stop_message or "")
    assert [c.result.content for c in result.tool_calls] == ["ran: ls", "read a.txt"]


# -- StopFailure -----------------------------------------------------------------------------


def failing(status: int, *, first: h.ModelResponse | None = None) -> FunctionModel:
    calls = 0

    def answer_or_fail(_: Any) -> h.ModelResponse:
        nonlocal calls
        calls += 1
        if first is not None and calls == 1:
            return first
        raise h.ModelError("the provider said no", provider="test", model="m", status=status)

    return FunctionModel(answer_or_fail)


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (429, "rate_limit"),
        (401, "authentication_failed"),
        (402, "billing_error"),
        (400, "invalid_request"),
        (503, "server_error"),
    ],
)
async def test_stop_failure_fires_when_a_model_error_ends_the_run(
    tmp_path: Path, record: Path, status: int, error: str
) -> None:
    cmd = hook(tmp_path, "failed")
    run = build(tmp_path, {"StopFailure": [group(cmd, error)]}, failing(status))
    result = await run.run("go")
    assert result.status == "failed"
    [payload] = received(record)
    assert set(payload) == COMMON | {"error", "error_details", "last_assistant_message"}
    assert payload["error"] == error
    assert "the provider said no" in payload["error_details"]
    assert f"HTTP {status}" in payload["error_details"]
    assert payload["last_assistant_message"] == ""


async def test_stop_failure_matchers_name_the_error_and_its_output_is_ignored(
    tmp_path: Path, record: Path
) -> None:
    stop = answer({"continue": False, "stopReason": "x", "systemMessage": "y"}, code=2)
    other = hook(tmp_path, "other_error")
    mine = hook(tmp_path, "rate_limited", stop)
    hooks = {"StopFailure": [group(other, "server_error"), group(mine, "rate_limit")]}
    result = await build(tmp_path, hooks, failing(429, first=tool_call("Bash", command="ls"))).run(
        "go"
    )
    [payload] = received(record)  # only the rate_limit group ran
    assert payload["last_assistant_message"] == ""  # the tool-calling turn had no text
    assert result.status == "failed"  # the hook's continue/exit 2 change nothing
    assert "the provider said no" in (result.stop_message or "")


async def test_stop_failure_does_not_fire_when_the_error_is_retried(
    tmp_path: Path, record: Path
) -> None:
    calls = 0

    def flaky(_: Any) -> h.ModelResponse:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise h.ModelError("slow down", provider="test", model="m", status=429)
        return reply("fine")

    cmd = hook(tmp_path, "failed")
    file = settings(tmp_path, {"StopFailure": [group(cmd)]})
    run = (
        h.AgentBuilder()
        .model(FunctionModel(flaky))
        .with_(h.ErrorPolicy({"rate_limit": "retry"}, max_retries=2))
        .with_settings(file, project_dir=tmp_path)
        .build()
    )
    result = await run.run("go")
    assert result.output == "fine"
    assert received(record) == []


async def test_stop_failure_does_not_fire_for_a_tool_error(tmp_path: Path, record: Path) -> None:
    @h.tool
    def Broken() -> str:
        """Always fails."""
        raise RuntimeError("boom")

    cmd = hook(tmp_path, "failed")
    file = settings(tmp_path, {"StopFailure": [group(cmd)]})
    model = ScriptedModel([tool_call("Broken"), reply("done")])
    run = h.AgentBuilder().model(model).tools(Broken).with_settings(file, project_dir=tmp_path)
    await run.build().run("go")
    assert received(record) == []


# -- PermissionDenied ------------------------------------------------------------------------


def approvals(tmp_path: Path, *rules: Rule) -> Approvals:
    return Approvals(rules, project_dir=tmp_path, settings=False, save_to=None)


async def test_permission_denied_fires_for_a_deny_rule_and_retry_tells_the_model(
    tmp_path: Path, record: Path
) -> None:
    said = {"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": True}}
    cmd = hook(tmp_path, "denied", answer(said))
    model = ScriptedModel([tool_call("Bash", "c1", command="rm -rf /"), reply("ok")])
    rule = Rule("Bash(rm:*)", "deny", reason="no deleting")
    run = build(
        tmp_path, {"PermissionDenied": [group(cmd, "Bash")]}, model, approvals(tmp_path, rule)
    )
    result = await run.run("go")
    [payload] = received(record)
    assert set(payload) == COMMON | {"tool_name", "tool_input", "tool_use_id", "reason"}
    assert (payload["tool_name"], payload["tool_use_id"]) == ("Bash", "c1")
    assert payload["tool_input"] == {"command": "rm -rf /"}
    assert "no deleting" in payload["reason"]
    [call] = result.tool_calls
    assert call.blocked and RETRY_NOTE in call.result.content
    assert model.calls[1].last_message == call.result.content
    [decision] = result.decisions.at(h.TOOL_REFUSED)
    assert decision.hook == "claude:PermissionDenied"


async def test_permission_denied_fires_when_an_approval_is_denied(
    tmp_path: Path, record: Path
) -> None:
    cmd = hook(tmp_path, "denied")
    model = ScriptedModel([tool_call("Bash", command="git push"), reply("ok")])
    rule = Rule("Bash(git push:*)", "ask")
    run = build(tmp_path, {"PermissionDenied": [group(cmd)]}, model, approvals(tmp_path, rule))
    result = await run.run("go", approver=lambda q: h.Answer.deny("not today"))
    [payload] = received(record)
    assert payload["tool_input"] == {"command": "git push"}
    assert payload["reason"] == "denied by approver: not today"
    [call] = result.tool_calls
    assert call.blocked and RETRY_NOTE not in call.result.content


async def test_permission_denied_does_not_fire_when_a_hook_blocks(
    tmp_path: Path, record: Path
) -> None:
    deny = hook(tmp_path, "pre", "print('no', file=sys.stderr)\nsys.exit(2)\n")
    denied = script(tmp_path, "denied", "open(os.environ['RECORD_TO'] + '.denied', 'w')\n")
    hooks = {"PreToolUse": [group(deny)], "PermissionDenied": [group(denied)]}
    model = ScriptedModel([tool_call("Bash", command="ls"), reply("ok")])
    result = await build(tmp_path, hooks, model).run("go")
    assert result.tool_calls[0].blocked
    assert not Path(str(record) + ".denied").exists()
    assert result.decisions.at(h.TOOL_REFUSED) == []


async def test_permission_denied_continue_false_ends_the_run(tmp_path: Path, record: Path) -> None:
    cmd = hook(tmp_path, "denied", answer({"continue": False, "stopReason": "escalated"}))
    model = ScriptedModel([tool_call("Bash", command="rm x"), reply("never")])
    rule = Rule("Bash(rm:*)", "deny")
    result = await build(
        tmp_path, {"PermissionDenied": [group(cmd)]}, model, approvals(tmp_path, rule)
    ).run("go")
    assert result.status == "stopped" and "escalated" in (result.stop_message or "")
    assert len(model.calls) == 1


# -- TaskCreated / TaskCompleted -------------------------------------------------------------


def todos(*items: tuple[str, str]) -> h.ModelResponse:
    listed = [{"content": c, "status": s, "activeForm": f"Doing: {c}"} for c, s in items]
    return tool_call("TodoWrite", todos=listed)


async def test_task_created_and_completed_fire_per_item_with_claude_code_s_fields(
    tmp_path: Path, record: Path
) -> None:
    created, completed = hook(tmp_path, "created"), hook(tmp_path, "completed")
    hooks = {"TaskCreated": [group(created)], "TaskCompleted": [group(completed)]}
    model = ScriptedModel(
        [
            todos(("Write tests", "in_progress"), ("Fix bug", "pending")),
            todos(("Write tests", "completed"), ("Fix bug", "in_progress")),
            reply("done"),
        ]
    )
    result = await build(tmp_path, hooks, model, TaskPlanning(nudge=False)).run("go")
    model.assert_consumed()
    seen = [(p["hook_event_name"], p["task_id"], p["task_subject"]) for p in received(record)]
    assert seen == [
        ("TaskCreated", "1", "Write tests"),
        ("TaskCreated", "2", "Fix bug"),
        ("TaskCompleted", "1", "Write tests"),
    ]
    first = received(record)[0]
    assert set(first) == COMMON | {"task_id", "task_subject", "task_description"}
    assert first["task_description"] == ""
    assert [t["status"] for t in result.state.metadata.get(TASKS.name) or []] == [
        "completed",
        "in_progress",
    ]


@pytest.mark.parametrize(
    ("event", "first", "second"),
    [
        ("TaskCreated", [("Ship it", "pending")], None),
        ("TaskCompleted", [("Ship it", "pending")], [("Ship it", "completed")]),
    ],
)
async def test_a_task_hook_exiting_2_refuses_the_update_and_the_model_reads_why(
    tmp_path: Path, record: Path, event: str, first: Any, second: Any
) -> None:
    cmd = hook(tmp_path, "guard", "print('tests are red', file=sys.stderr)\nsys.exit(2)\n")
    turns = [todos(*first)] + ([todos(*second)] if second else []) + [reply("ok")]
    model = ScriptedModel(turns)
    result = await build(tmp_path, {event: [group(cmd)]}, model, TaskPlanning(nudge=False)).run(
        "go"
    )
    model.assert_consumed()
    refused = result.tool_calls[-1]
    assert refused.result.is_error and "tests are red" in refused.result.content
    assert "the task list was not changed" in refused.result.content
    stored = result.state.metadata.get(TASKS.name) or []
    expected = [] if event == "TaskCreated" else [("Ship it", "pending")]
    assert [(t["content"], t["status"]) for t in stored] == expected


async def test_a_task_hook_continue_false_stops_the_run(tmp_path: Path, record: Path) -> None:
    cmd = hook(tmp_path, "stop", answer({"continue": False, "stopReason": "enough"}))
    model = ScriptedModel([todos(("A", "pending")), reply("never")])
    result = await build(
        tmp_path, {"TaskCreated": [group(cmd)]}, model, TaskPlanning(nudge=False)
    ).run("go")
    assert result.status == "stopped" and "enough" in (result.stop_message or "")
    assert len(model.calls) == 1


async def test_native_hooks_see_the_new_points(tmp_path: Path) -> None:
    seen: list[str] = []
    rule = Rule("Bash(rm:*)", "deny")
    model = ScriptedModel(
        [todos(("A", "completed")), tool_call("Bash", command="rm x"), reply("ok")]
    )
    run = (
        h.AgentBuilder()
        .model(model)
        .tools(Bash)
        .with_(TaskPlanning(nudge=False))
        .with_(approvals(tmp_path, rule))
        .on(h.TASK_CREATED, lambda e: seen.append(f"created {e.subject}"))
        .on(h.TASK_COMPLETED, lambda e: seen.append(f"completed {e.task_id}"))
        .on(h.TOOL_REFUSED, lambda e: seen.append(f"refused {e.tool_name} by {e.by}"))
        .build()
    )
    await run.run("go")
    assert seen == ["created A", "completed 1", "refused Bash by approvals:rules"]


# -- SessionStart: initialUserMessage, sessionTitle, watchPaths ------------------------------


def user_messages(result: h.RunResult) -> list[str]:
    return [
        m.content for m in result.state.messages if isinstance(m, h.UserMessage) and not m.synthetic
    ]


async def test_session_start_initial_user_message_enters_a_new_run_before_its_prompt(
    tmp_path: Path, record: Path
) -> None:
    said = {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "initialUserMessage": "read TODO.md first",
            "sessionTitle": "Fixing the build",
        }
    }
    start, prompt = hook(tmp_path, "start", answer(said)), hook(tmp_path, "prompt")
    hooks = {"SessionStart": [group(start)], "UserPromptSubmit": [group(prompt)]}
    model = ScriptedModel([reply("done")])
    result = await build(tmp_path, hooks, model).run("fix the build")
    assert user_messages(result) == ["read TODO.md first", "fix the build"]
    seen = [(p["hook_event_name"], p.get("prompt")) for p in received(record)]
    assert seen == [
        ("SessionStart", None),
        ("UserPromptSubmit", "read TODO.md first"),  # a user's message: its hooks see it
        ("UserPromptSubmit", "fix the build"),
    ]
    assert "session_title" not in received(record)[0]  # none was set before
    assert result.state.metadata["session_title"] == "Fixing the build"


async def test_a_user_prompt_hook_can_refuse_the_initial_message(
    tmp_path: Path, record: Path
) -> None:
    said = {"hookSpecificOutput": {"hookEventName": "SessionStart", "initialUserMessage": "x"}}
    start = hook(tmp_path, "start", answer(said))
    refuse = hook(tmp_path, "prompt", answer({"decision": "block", "reason": "not that"}))
    hooks = {"SessionStart": [group(start)], "UserPromptSubmit": [group(refuse)]}
    model = ScriptedModel([])
    result = await build(tmp_path, hooks, model).run("go")
    assert result.status == "stopped" and "not that" in (result.stop_message or "")
    assert model.calls == []


async def test_session_title_reaches_later_session_start_hooks_and_watch_paths_are_named(
    tmp_path: Path, record: Path, caplog: pytest.LogCaptureFixture
) -> None:
    said = {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "sessionTitle": "Release 2.0",
            "watchPaths": [".envrc"],
        }
    }
    cmd = hook(tmp_path, "start", answer(said))
    file = settings(tmp_path, {"SessionStart": [group(cmd)]})
    store = MemoryStore()
    model = ScriptedModel([tool_call("Bash", command="git push"), reply("pushed")])

    def build_run() -> h.Agent:
        ask = approvals(tmp_path, Rule("Bash(git push:*)", "ask"))
        builder = h.AgentBuilder().model(model).tools(Bash).store(store).with_(ask)
        return builder.with_settings(file, project_dir=tmp_path).build()

    with caplog.at_level("WARNING", logger="hookagent.claude"):
        first = await build_run().run("go")
    assert first.status == "waiting"  # paused on the question: the session goes on later
    assert first.state.metadata["session_title"] == "Release 2.0"
    assert "watchPaths ['.envrc'] not watched" in caplog.text
    [question] = await store.questions(first.run_id)
    await store.answer(question.id, answer_json(True), 1.0)
    second = await build_run().resume(first.run_id)
    assert second.output == "pushed"
    payloads = received(record)
    assert [p["source"] for p in payloads] == ["startup", "resume"]
    assert "session_title" not in payloads[0]
    assert payloads[1]["session_title"] == "Release 2.0"


async def test_native_session_start_hooks_can_give_the_first_message(tmp_path: Path) -> None:
    model = ScriptedModel([reply("done")])
    run = (
        h.AgentBuilder()
        .model(model)
        .on(h.SESSION_START, lambda e: h.HookResult.modify(prompt=f"first ({e.source})"))
        .build()
    )
    result = await run.run("then this")
    assert user_messages(result) == ["first (startup)", "then this"]


# -- events with no meaning here stay refused ------------------------------------------------

NOT_APPLICABLE = [
    "ConfigChange",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "MessageDisplay",
    "PostModelSwitch",
    "PreModelSwitch",
    "TeammateIdle",
    "WorktreeCreate",
    "WorktreeRemove",
]


@pytest.mark.parametrize("event", NOT_APPLICABLE)
def test_handlers_on_events_not_fired_are_refused_naming_file_path_and_event(
    tmp_path: Path, event: str
) -> None:
    file = settings(tmp_path, {event: [group("notify-send x")]})
    with pytest.raises(h.ConfigError) as caught:
        h.AgentBuilder().model(ScriptedModel([])).with_settings(file, project_dir=tmp_path)
    error = caught.value
    assert (error.file, error.key, error.value) == (str(file), f"hooks.{event}", event)
    assert str(error).startswith(f"{file}, hooks.{event}: hookagent does not fire {event}")

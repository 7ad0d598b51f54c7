"""Claude Code events whose hookagent surfaces (sessions, subagents, compaction) come later.

No agent runs here: each point is fired straight through a `Dispatcher` over the hooks that
`ClaudeHooks` builds from a settings file, as the surfaces will fire them, with real Python
hook scripts. Every script records its stdin, so each test checks the payload as well as the
decision.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hookagent.capabilities.bash._tool import ENV_FILE_KEY
from hookagent.claude._bridge import ClaudeHooks
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._sources import discover
from hookagent.hooks._events import (
    CompactEvent,
    NotificationEvent,
    PermissionEvent,
    RunEvent,
    SubagentEvent,
)
from hookagent.hooks._points import (
    AFTER_COMPACT,
    BEFORE_COMPACT,
    NOTIFICATION,
    PERMISSION_REQUEST,
    SESSION_END,
    SESSION_START,
    SUBAGENT_START,
    SUBAGENT_STOP,
    HookPoint,
)
from hookagent.hooks._registry import HookRegistry
from hookagent.kernel._approval import Question
from hookagent.kernel._dispatch import Dispatcher
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView

from .hookscripts import RECORD_STDIN, group, script, settings

COMMON = ("session_id", "transcript_path", "cwd", "hook_event_name")


def dispatcher(tmp_path: Path, hooks: dict[str, list[dict[str, Any]]]) -> Dispatcher:
    """A run with no agent: its state, its view and the Claude hooks of one settings file."""
    file = settings(tmp_path, hooks)
    loaded = discover(tmp_path, explicit=[file], include_standard=False)
    claude = ClaudeHooks(loaded, ClaudeHookOptions(project_dir=str(tmp_path)))
    state = RunState(run_id="run-1", session_id="sess-1")
    return Dispatcher(
        HookRegistry(claude.hooks()), state, RunView(state), approver=None, watch=None
    )


def hook(tmp_path: Path, name: str, then: str = "") -> str:
    """A script that records its stdin to $RECORD_TO, then runs `then`."""
    return script(tmp_path, name, RECORD_STDIN + textwrap.dedent(then))


def answer(obj: dict[str, Any]) -> str:
    """Script lines printing `obj` as the hook's JSON answer."""
    return f"print(json.dumps({obj!r}))\n"


def context_of(event: str, text: str) -> str:
    return answer({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "stdin.jsonl"
    monkeypatch.setenv("RECORD_TO", str(path))
    return path


def payloads(record: Path, event: str) -> list[dict[str, Any]]:
    """What the hooks read, after checking the fields every event carries (§6.1)."""
    sent = [json.loads(line) for line in record.read_text().splitlines()]
    for payload in sent:
        assert payload["hook_event_name"] == event
        assert payload["session_id"] == "sess-1"
        assert payload["transcript_path"].endswith("sess-1.jsonl")
        assert payload["cwd"] == str(record.parent.resolve())
    return sent


def own_fields(payload: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in payload.items() if key not in COMMON}


# -- SessionStart ---------------------------------------------------------------------


async def test_session_start_plain_stdout_and_json_context_become_context(
    tmp_path: Path, record: Path
) -> None:
    plain = hook(tmp_path, "plain", "print('branch main, 3 files changed')")
    structured = hook(tmp_path, "structured", context_of("SessionStart", "open issues: #12"))
    d = dispatcher(tmp_path, {"SessionStart": [group(plain), group(structured)]})
    decision, _ = await d.fire(SESSION_START, RunEvent(run=d.view, source="startup"))
    assert decision.outcome == "context"
    assert decision.contexts == ("branch main, 3 files changed", "open issues: #12")
    assert [vote.hook for vote in decision.votes] == ["claude:SessionStart"]
    sent = payloads(record, "SessionStart")
    assert [own_fields(payload) for payload in sent] == [{"source": "startup"}] * 2


async def test_the_session_start_matcher_tests_the_source(tmp_path: Path, record: Path) -> None:
    fresh = hook(tmp_path, "fresh", "print('a fresh session')")
    resumed = hook(tmp_path, "resumed", "print('welcome back')")
    d = dispatcher(tmp_path, {"SessionStart": [group(fresh, "startup"), group(resumed, "resume")]})
    started, _ = await d.fire(SESSION_START, RunEvent(run=d.view, source="startup"))
    reloaded, _ = await d.fire(SESSION_START, RunEvent(run=d.view, source="resume"))
    assert started.contexts == ("a fresh session",)
    assert reloaded.contexts == ("welcome back",)
    sent = payloads(record, "SessionStart")
    assert [own_fields(payload) for payload in sent] == [
        {"source": "startup"},
        {"source": "resume"},
    ]


async def test_session_start_hooks_append_to_their_env_file(
    tmp_path: Path, record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_ENV_FILE", raising=False)
    exports = hook(
        tmp_path,
        "exports",
        """
        path = os.environ["CLAUDE_ENV_FILE"]
        with open(path, "a") as env:
            env.write("export FROM_HOOK=1\\n")
        print(path)
        """,
    )
    elsewhere = hook(
        tmp_path,
        "elsewhere",
        """
        seen = os.environ.get("CLAUDE_ENV_FILE", "unset")
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "SubagentStart",
                                                 "additionalContext": seen}}))
        """,
    )
    d = dispatcher(
        tmp_path, {"SessionStart": [group(exports)], "SubagentStart": [group(elsewhere)]}
    )
    decision, _ = await d.fire(SESSION_START, RunEvent(run=d.view, source="startup"))
    [env_file] = decision.contexts
    assert Path(env_file).is_relative_to(tmp_path.resolve())
    assert Path(env_file).read_text() == "export FROM_HOOK=1\n"
    assert d.view.metadata[ENV_FILE_KEY] == env_file  # the run's Bash sources it
    await d.fire(SESSION_START, RunEvent(run=d.view, source="startup"))
    assert Path(env_file).read_text() == "export FROM_HOOK=1\n" * 2  # same run: appended
    other, _ = await d.fire(
        SUBAGENT_START, SubagentEvent(run=d.view, agent_id="a-1", agent_type="reviewer")
    )
    assert other.contexts == ("unset",)  # of the events hookagent fires, SessionStart's alone


# -- SessionEnd -----------------------------------------------------------------------


async def test_session_end_runs_and_its_json_is_discarded(tmp_path: Path, record: Path) -> None:
    bye = hook(tmp_path, "bye", answer({"continue": False, "systemMessage": "bye"}))
    d = dispatcher(tmp_path, {"SessionEnd": [group(bye)]})
    decision, _ = await d.fire(SESSION_END, RunEvent(run=d.view, source="other"))
    assert decision.outcome == "proceed"
    assert list(d.view.decisions) == []
    [payload] = payloads(record, "SessionEnd")
    assert own_fields(payload) == {"reason": "other"}


async def test_session_end_hooks_share_the_budget_set_in_the_environment(
    tmp_path: Path, record: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS", "100")
    marker = tmp_path / "finished"
    slow = hook(
        tmp_path,
        "slow",
        f"""
        import time
        time.sleep(1)
        open({str(marker)!r}, "w").close()
        """,
    )
    d = dispatcher(tmp_path, {"SessionEnd": [group(slow)]})
    decision, _ = await d.fire(SESSION_END, RunEvent(run=d.view, source="logout"))
    assert decision.outcome == "proceed"
    assert not marker.exists()  # stopped at 0.1 s, not at the 1.5 s default


# -- SubagentStart / SubagentStop -----------------------------------------------------


async def test_subagent_start_matches_the_agent_type_and_adds_context(
    tmp_path: Path, record: Path
) -> None:
    reviewer = hook(tmp_path, "reviewer", context_of("SubagentStart", "review against STYLE.md"))
    planner = hook(tmp_path, "planner", context_of("SubagentStart", "plan in small steps"))
    d = dispatcher(
        tmp_path,
        {"SubagentStart": [group(reviewer, "reviewer"), group(planner, "planner|architect")]},
    )
    decision, _ = await d.fire(
        SUBAGENT_START, SubagentEvent(run=d.view, agent_id="agent-7", agent_type="reviewer")
    )
    assert decision.outcome == "context"
    assert decision.contexts == ("review against STYLE.md",)
    [payload] = payloads(record, "SubagentStart")
    assert own_fields(payload) == {
        "permission_mode": "default",
        "agent_id": "agent-7",
        "agent_type": "reviewer",
    }


def finished(run: RunView) -> SubagentEvent:
    return SubagentEvent(
        run=run,
        agent_id="agent-7",
        agent_type="reviewer",
        output="LGTM",
        stop_hook_active=True,
    )


async def test_a_subagent_stop_json_block_keeps_the_subagent_going(
    tmp_path: Path, record: Path
) -> None:
    again = hook(tmp_path, "again", answer({"decision": "block", "reason": "check the tests too"}))
    d = dispatcher(tmp_path, {"SubagentStop": [group(again, "reviewer")]})
    decision, _ = await d.fire(SUBAGENT_STOP, finished(d.view))
    assert (decision.outcome, decision.reason) == ("block", "check the tests too")
    [payload] = payloads(record, "SubagentStop")
    assert own_fields(payload) == {
        "permission_mode": "default",
        "agent_id": "agent-7",
        "agent_type": "reviewer",
        "stop_hook_active": True,
        "last_assistant_message": "LGTM",
        "background_tasks": [],
        "session_crons": [],
        "agent_transcript_path": "",
    }


async def test_a_subagent_stop_exit_2_blocks_with_its_stderr(tmp_path: Path, record: Path) -> None:
    again = hook(tmp_path, "again", "print('lint fails in a.py', file=sys.stderr); sys.exit(2)")
    other = hook(tmp_path, "other", "sys.exit(2)")
    d = dispatcher(tmp_path, {"SubagentStop": [group(again, "reviewer"), group(other, "planner")]})
    decision, _ = await d.fire(SUBAGENT_STOP, finished(d.view))
    assert (decision.outcome, decision.reason) == ("block", "lint fails in a.py")
    [payload] = payloads(record, "SubagentStop")  # the planner's hook never ran
    assert payload["agent_type"] == "reviewer" and payload["stop_hook_active"] is True


# -- PreCompact / PostCompact ---------------------------------------------------------


async def test_pre_compact_matches_the_trigger_and_exit_2_blocks(
    tmp_path: Path, record: Path
) -> None:
    refuse = hook(tmp_path, "refuse", "print('not during a review', file=sys.stderr); sys.exit(2)")
    allow = hook(tmp_path, "allow")
    d = dispatcher(tmp_path, {"PreCompact": [group(refuse, "manual"), group(allow, "auto")]})
    automatic, _ = await d.fire(BEFORE_COMPACT, CompactEvent(run=d.view, trigger="auto"))
    manual, _ = await d.fire(
        BEFORE_COMPACT, CompactEvent(run=d.view, trigger="manual", instructions="keep the plan")
    )
    assert automatic.outcome == "proceed"
    assert (manual.outcome, manual.reason) == ("block", "not during a review")
    assert [own_fields(payload) for payload in payloads(record, "PreCompact")] == [
        {"trigger": "auto", "custom_instructions": ""},
        {"trigger": "manual", "custom_instructions": "keep the plan"},
    ]


async def test_post_compact_observes_the_summary(tmp_path: Path, record: Path) -> None:
    ignored = hook(tmp_path, "ignored", answer({"decision": "block", "reason": "no effect"}))
    d = dispatcher(tmp_path, {"PostCompact": [group(ignored, "auto")]})
    decision, _ = await d.fire(
        AFTER_COMPACT, CompactEvent(run=d.view, trigger="auto", summary="we fixed the parser")
    )
    assert decision.outcome == "proceed"
    [payload] = payloads(record, "PostCompact")
    assert own_fields(payload) == {"trigger": "auto", "compact_summary": "we fixed the parser"}


# -- Notification ---------------------------------------------------------------------


async def test_notification_matches_its_type_and_can_change_nothing(
    tmp_path: Path, record: Path
) -> None:
    loud = hook(
        tmp_path,
        "loud",
        answer({"continue": False, "decision": "block", "systemMessage": "look!"}),
    )
    failing = hook(tmp_path, "failing", "print('no bell', file=sys.stderr); sys.exit(2)")
    idle = hook(tmp_path, "idle")
    d = dispatcher(
        tmp_path,
        {
            "Notification": [
                group(loud, "permission_prompt"),
                group(failing, "permission_prompt"),
                group(idle, "idle_prompt"),
            ]
        },
    )
    decision, _ = await d.fire(
        NOTIFICATION,
        NotificationEvent(
            run=d.view,
            kind="permission_prompt",
            message="Claude needs your permission to use Bash",
            title="Permission needed",
        ),
    )
    assert decision.outcome == "proceed"
    assert list(d.view.decisions) == []
    sent = payloads(record, "Notification")
    assert len(sent) == 2  # the idle_prompt hook never ran
    assert all(
        own_fields(payload)
        == {
            "message": "Claude needs your permission to use Bash",
            "notification_type": "permission_prompt",
            "title": "Permission needed",
        }
        for payload in sent
    )


# -- PermissionRequest ----------------------------------------------------------------


def permission(run: RunView, tool_name: str, args: dict[str, Any]) -> PermissionEvent:
    question = Question(
        point="before_tool",
        hook="claude:PreToolUse",
        question=f"Allow {tool_name}?",
        run_id=run.run_id,
        step=0,
        call_id="call-1",
        tool_name=tool_name,
        args=args,
    )
    return PermissionEvent(run=run, question=question, tool_name=tool_name)


def choice(**decision: Any) -> str:
    return answer(
        {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
    )


async def test_a_permission_request_allow_answers_with_the_updated_input(
    tmp_path: Path, record: Path
) -> None:
    allow = hook(tmp_path, "allow", choice(behavior="allow", updatedInput={"command": "ls -la"}))
    deny_writes = hook(tmp_path, "deny_writes", choice(behavior="deny", message="read only"))
    d = dispatcher(
        tmp_path,
        {"PermissionRequest": [group(allow, "Bash"), group(deny_writes, "Write|Edit")]},
    )
    decision, event = await d.fire(
        PERMISSION_REQUEST, permission(d.view, "Bash", {"command": "ls"})
    )
    assert decision.outcome == "modify"
    assert event.answer is not None and event.answer.approved
    assert event.answer.updated_args == {"command": "ls -la"}
    [payload] = payloads(record, "PermissionRequest")
    assert own_fields(payload) == {
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "permission_suggestions": [],
    }


async def test_a_permission_request_deny_blocks_with_its_message(
    tmp_path: Path, record: Path
) -> None:
    deny = hook(tmp_path, "deny", choice(behavior="deny", message="no writes outside src/"))
    d = dispatcher(tmp_path, {"PermissionRequest": [group(deny, "Write")]})
    decision, event = await d.fire(
        PERMISSION_REQUEST, permission(d.view, "Write", {"file_path": "/etc/hosts", "content": ""})
    )
    assert (decision.outcome, decision.reason) == ("block", "no writes outside src/")
    assert event.answer is None
    [payload] = payloads(record, "PermissionRequest")
    assert payload["tool_input"] == {"file_path": "/etc/hosts", "content": ""}
    assert "tool_use_id" not in payload


# -- continue: false ------------------------------------------------------------------

Fire = tuple[str, HookPoint[Any], Callable[[RunView], Any]]
HONOURED: list[Fire] = [
    ("SessionStart", SESSION_START, lambda run: RunEvent(run=run, source="startup")),
    (
        "SubagentStart",
        SUBAGENT_START,
        lambda run: SubagentEvent(run=run, agent_id="a-1", agent_type="reviewer"),
    ),
    ("PostCompact", AFTER_COMPACT, lambda run: CompactEvent(run=run, trigger="auto")),
    ("SubagentStop", SUBAGENT_STOP, finished),
]
DISCARDED: list[Fire] = [
    ("SessionEnd", SESSION_END, lambda run: RunEvent(run=run, source="other")),
    ("PreCompact", BEFORE_COMPACT, lambda run: CompactEvent(run=run, trigger="auto")),
    (
        "Notification",
        NOTIFICATION,
        lambda run: NotificationEvent(run=run, kind="idle_prompt", message="waiting"),
    ),
]


@pytest.mark.parametrize(("event", "point", "make"), HONOURED, ids=[f[0] for f in HONOURED])
async def test_continue_false_stops_the_run(
    tmp_path: Path, record: Path, event: str, point: HookPoint[Any], make: Callable[[RunView], Any]
) -> None:
    halt = hook(tmp_path, "halt", answer({"continue": False, "stopReason": "maintenance window"}))
    d = dispatcher(tmp_path, {event: [group(halt)]})
    decision, _ = await d.fire(point, make(d.view))
    assert (decision.outcome, decision.reason) == ("stop", "maintenance window")
    assert len(payloads(record, event)) == 1


@pytest.mark.parametrize(("event", "point", "make"), DISCARDED, ids=[f[0] for f in DISCARDED])
async def test_continue_false_is_discarded_where_universal_fields_are(
    tmp_path: Path, record: Path, event: str, point: HookPoint[Any], make: Callable[[RunView], Any]
) -> None:
    halt = hook(tmp_path, "halt", answer({"continue": False, "stopReason": "maintenance window"}))
    d = dispatcher(tmp_path, {event: [group(halt)]})
    decision, _ = await d.fire(point, make(d.view))
    assert decision.outcome == "proceed"
    assert len(payloads(record, event)) == 1

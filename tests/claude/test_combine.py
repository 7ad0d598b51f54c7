"""Merging several handlers' verdicts (CLAUDE_HOOKS §8).

Scenarios run real hooks in parallel and merge what they said; property tests check the rules
on random verdict lists against a small model written here from §8.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookagent.claude._combine import RANK, combine
from hookagent.claude._model import Combined, Decision, HandlerSpec, HandlerVerdict, SettingsSource
from hookagent.claude._output import read_verdict
from hookagent.claude._runner import run_all

SCRIPTS = Path(__file__).parent / "scripts"
PY = shlex.quote(sys.executable)
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
PROPERTY_SETTINGS = settings(max_examples=100, deadline=None, derandomize=True, database=None)

PAYLOAD = {
    "session_id": "sess-1",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/work",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build", "description": "clean"},
    "tool_use_id": "t1",
}
Pair = tuple[HandlerSpec, HandlerVerdict]


def spec(command: str = "true", *, event: str = "PreToolUse", n: int = 0, **kw: Any) -> HandlerSpec:
    return HandlerSpec(
        event=event,
        matcher="Bash",
        type="command",
        command=command,
        source=SettingsSource(path=".claude/settings.json", kind="project"),
        where=f"hooks.{event}[{n}].hooks[0]",
        **kw,
    )


def emit(stdout: str = "", *, stderr: str = "", exit: int = 0) -> str:
    out, err = shlex.quote(stdout), shlex.quote(stderr)
    return f"cat >/dev/null; printf %s {out}; printf %s {err} >&2; exit {exit}"


def decide(decision: str, reason: str) -> str:
    output = {"hookEventName": "PreToolUse", "permissionDecision": decision}
    return emit(json.dumps({"hookSpecificOutput": {**output, "permissionDecisionReason": reason}}))


async def run_event(
    event: str, commands: Sequence[str], payload: dict[str, Any] | None = None
) -> list[Pair]:
    """Run `commands` in parallel as the handlers of `event`, in this merge order."""
    specs = [spec(command, event=event, n=n) for n, command in enumerate(commands)]
    stdin = {**(payload or PAYLOAD), "hook_event_name": event}
    outcomes = await run_all(specs, stdin, cwd=str(SCRIPTS), project_dir=str(SCRIPTS))
    return [(s, read_verdict(event, o, s)) for s, o in zip(specs, outcomes, strict=True)]


# scenarios with real hooks ----------------------------------------------------------------------


async def test_parallel_hooks_deny_beats_defer_ask_and_allow() -> None:
    guard = f"{PY} guard_bash.py"
    commands = [
        decide("allow", "fine"),
        decide("ask", "check"),
        decide("deny", "policy 7"),
        decide("defer", "later"),
        guard,
    ]
    pairs = await run_event("PreToolUse", commands)
    combined = combine("PreToolUse", pairs)
    assert combined.decision == "deny"
    assert combined.reason == "policy 7\nrm -rf is not allowed here"  # both denies, merge order
    assert combine("PreToolUse", pairs[::-1]).decision == "deny"


async def test_exit_2_counts_as_deny_and_no_decision_does_not_vote() -> None:
    commands = [decide("allow", "fine"), emit(stderr="stop right there", exit=2), emit("{}")]
    combined = combine("PreToolUse", await run_event("PreToolUse", commands))
    assert (combined.decision, combined.reason) == ("deny", "stop right there")
    allowed = combine("PreToolUse", await run_event("PreToolUse", [emit("{}"), decide("ask", "q")]))
    assert (allowed.decision, allowed.reason) == ("ask", "q")


@needs_node
@pytest.mark.parametrize("mode", ["last_configured", "deny"])
async def test_updated_input_from_two_hooks(mode: Literal["last_configured", "deny"]) -> None:
    commands = [
        "node rewrite_input.js 'rm -rf ./build' allow",
        "node rewrite_input.js 'rm -r build' none",
    ]
    pairs = await run_event("PreToolUse", commands)
    combined = combine("PreToolUse", pairs, updated_input_conflict=mode)
    assert len(combined.conflicts) == 1
    assert pairs[0][0].label in combined.conflicts[0]
    assert pairs[1][0].label in combined.conflicts[0]
    if mode == "last_configured":
        assert combined.decision == "allow"
        assert combined.updated_input == {"command": "rm -r build", "description": "clean"}
    else:
        assert combined.decision == "deny"
        assert combined.reason is not None and "conflicting" in combined.reason
        assert combined.updated_input is None


@needs_node
async def test_equal_updated_inputs_do_not_conflict() -> None:
    commands = ["node rewrite_input.js 'make' allow", "node rewrite_input.js 'make' ask"]
    pairs = await run_event("PreToolUse", commands)
    combined = combine("PreToolUse", pairs, updated_input_conflict="deny")
    assert (combined.decision, combined.conflicts) == ("ask", ())
    assert combined.updated_input == {"command": "make", "description": "clean"}


@needs_node
async def test_updated_input_with_defer_is_ignored() -> None:
    commands = [
        "node rewrite_input.js 'deferred' defer",
        "node rewrite_input.js 'allowed' allow",
    ]
    pairs = await run_event("PreToolUse", commands)
    combined = combine("PreToolUse", pairs, updated_input_conflict="deny")
    assert combined.decision == "defer"
    assert combined.updated_input == {"command": "allowed", "description": "clean"}
    assert combined.conflicts == ()
    alone = combine("PreToolUse", pairs[:1])
    assert (alone.decision, alone.updated_input) == ("defer", None)


async def test_any_stop_block_keeps_the_agent_going() -> None:
    stop = {**PAYLOAD, "stop_hook_active": False, "last_assistant_message": "Done."}
    commands = [emit("{}"), f"{PY} stop_gate.py", emit(stderr="tests fail", exit=2)]
    combined = combine("Stop", await run_event("Stop", commands, stop))
    assert combined.decision == "block"
    assert combined.reason == "Run the test suite before stopping.\ntests fail"


async def test_texts_are_kept_in_merge_order_and_continue_false_wins() -> None:
    def post(context: str, **top: Any) -> str:
        specific = {"hookEventName": "PostToolUse", "additionalContext": context}
        return emit(json.dumps({**top, "hookSpecificOutput": specific}))

    commands = [
        post("first", systemMessage="note 1"),
        post("second", **{"continue": False, "stopReason": "quota reached"}),
        "sh exit1_block.sh",
        post("third", systemMessage="note 2"),
    ]
    pairs = await run_event("PostToolUse", commands)
    combined = combine("PostToolUse", pairs)
    assert combined.additional_context == ("first", "second", "third")
    assert combined.system_messages == ("note 1", "note 2")
    assert (combined.continue_, combined.stop_reason) == (False, "quota reached")
    assert combined.errors == (f"{pairs[2][0].label}: BLOCKED: file exceeds 250 lines",)
    assert combined.decision == "none"


async def test_permission_request_outvoted_extras_are_dropped() -> None:
    def choice(**decision: Any) -> str:
        specific = {"hookEventName": "PermissionRequest", "decision": decision}
        return emit(json.dumps({"hookSpecificOutput": specific}))

    commands = [
        choice(behavior="allow", updatedPermissions=[{"type": "addRules"}]),
        choice(behavior="deny", message="no", interrupt=True),
    ]
    combined = combine("PermissionRequest", await run_event("PermissionRequest", commands))
    assert (combined.decision, combined.reason) == ("deny", "no")
    assert combined.extra == {"interrupt": True}


# merging without processes -----------------------------------------------------------------------


def test_nothing_to_merge() -> None:
    assert combine("PreToolUse", []) == Combined()


def test_async_handlers_do_not_vote_but_their_texts_count() -> None:
    background = spec(n=0, run_async=True)
    verdict = HandlerVerdict(decision="deny", reason="late", additional_context="fyi")
    combined = combine("PreToolUse", [(background, verdict)])
    assert (combined.decision, combined.additional_context) == ("none", ("fyi",))


def test_extra_lists_are_concatenated_and_later_keys_win() -> None:
    pairs = [
        (spec(n=0), HandlerVerdict(extra={"watchPaths": ["a", "b"], "sessionTitle": "one"})),
        (spec(n=1), HandlerVerdict(extra={"watchPaths": ["b", "c"], "sessionTitle": "two"})),
    ]
    assert combine("SessionStart", pairs).extra == {
        "watchPaths": ["a", "b", "c"],
        "sessionTitle": "two",
    }


def test_updated_output_last_wins_with_a_note() -> None:
    pairs = [
        (spec(n=0), HandlerVerdict(updated_output={"stdout": "a"})),
        (spec(n=1), HandlerVerdict(updated_output={"stdout": "b"})),
    ]
    combined = combine("PostToolUse", pairs)
    assert combined.updated_output == {"stdout": "b"}
    assert len(combined.conflicts) == 1 and "updatedToolOutput" in combined.conflicts[0]


# properties --------------------------------------------------------------------------------------

TOOL_DECISIONS: st.SearchStrategy[Decision] = st.sampled_from(
    ("none", "allow", "ask", "defer", "deny")
)
BLOCK_DECISIONS: st.SearchStrategy[Decision] = st.sampled_from(("none", "block"))
MAY_UPDATE = ("none", "allow", "ask")


COUNTS = st.integers(min_value=0, max_value=6)
INPUTS = st.none() | st.fixed_dictionaries({"command": st.sampled_from("abc")})
REASONS = st.none() | st.sampled_from(["r1", "r2", "r3"])
CONTEXTS = st.none() | st.text(min_size=1, max_size=5)
STOP_REASONS = st.none() | st.sampled_from(["quota", "done"])
"""Built once: a strategy built inside a draw is validated again on every draw."""


@st.composite
def verdict_lists(draw: st.DrawFn, decisions: st.SearchStrategy[Decision]) -> list[Pair]:
    pairs = []
    for n in range(draw(COUNTS)):
        decision = draw(decisions)
        updated = draw(INPUTS)
        verdict = HandlerVerdict(
            decision=decision,
            reason=draw(REASONS),
            updated_input=updated if decision in MAY_UPDATE else None,
            additional_context=draw(CONTEXTS),
            continue_=draw(st.booleans()),
            stop_reason=draw(STOP_REASONS),
        )
        pairs.append((spec(n=n), verdict))
    return pairs


def expected_decision(pairs: list[Pair]) -> Decision:
    """§8.2 as a rule: the highest-ranked decision, `none` when nobody voted."""
    decisions = {v.decision for _, v in pairs}
    order: tuple[Decision, ...] = ("deny", "block", "defer", "ask", "allow")
    return next((d for d in order if d in decisions), "none")


@PROPERTY_SETTINGS
@given(verdict_lists(TOOL_DECISIONS), st.randoms())
def test_precedence_does_not_depend_on_order(pairs: list[Pair], rnd: Any) -> None:
    shuffled = list(pairs)
    rnd.shuffle(shuffled)
    combined = combine("PreToolUse", pairs)
    assert combined.decision == expected_decision(pairs)
    assert combine("PreToolUse", shuffled).decision == combined.decision
    winners = [v.reason for _, v in pairs if v.decision == combined.decision and v.reason]
    if combined.decision != "none":
        assert combined.reason == ("\n".join(winners) or None)


@PROPERTY_SETTINGS
@given(verdict_lists(BLOCK_DECISIONS), st.randoms())
def test_any_block_wins(pairs: list[Pair], rnd: Any) -> None:
    shuffled = list(pairs)
    rnd.shuffle(shuffled)
    blocked = any(v.decision == "block" for _, v in pairs)
    assert combine("Stop", shuffled).decision == ("block" if blocked else "none")


@PROPERTY_SETTINGS
@given(verdict_lists(TOOL_DECISIONS))
def test_contexts_and_continue(pairs: list[Pair]) -> None:
    combined = combine("PreToolUse", pairs)
    assert combined.additional_context == tuple(
        v.additional_context for _, v in pairs if v.additional_context
    )
    assert combined.continue_ == all(v.continue_ for _, v in pairs)
    stop_reasons = [v.stop_reason for _, v in pairs if not v.continue_ and v.stop_reason]
    assert combined.stop_reason == ("\n".join(stop_reasons) or None)


@PROPERTY_SETTINGS
@given(verdict_lists(TOOL_DECISIONS))
def test_last_updated_input_among_allow_ask_and_none(pairs: list[Pair]) -> None:
    eligible = [v.updated_input for _, v in pairs if v.updated_input is not None]
    conflict = len(eligible) > 1 and any(u != eligible[-1] for u in eligible[:-1])
    last = combine("PreToolUse", pairs)
    if last.decision == "deny":
        assert last.updated_input is None
    else:
        assert last.updated_input == (eligible[-1] if eligible else None)
    assert bool(last.conflicts) == conflict
    strict = combine("PreToolUse", pairs, updated_input_conflict="deny")
    assert strict.decision == ("deny" if conflict else last.decision)
    if not conflict:
        assert strict == last


def test_rank_orders_every_decision() -> None:
    assert sorted(RANK, key=RANK.__getitem__) == ["none", "allow", "ask", "defer", "block", "deny"]

"""The fold, called directly, and the decisions `Dispatcher.fire` records from it."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from hookagent._errors import HookError
from hookagent.hooks._engine import fold
from hookagent.hooks._events import (
    ContinueEvent,
    ErrorEvent,
    NotificationEvent,
    RunEvent,
    StepEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from hookagent.hooks._hook import make_hook
from hookagent.hooks._points import (
    AFTER_TOOL,
    BEFORE_STEP,
    BEFORE_TOOL,
    EXECUTION_END,
    NOTIFICATION,
    ON_ERROR,
    SHOULD_CONTINUE,
    HookPoint,
)
from hookagent.hooks._registry import HookRegistry
from hookagent.hooks._result import PROCEED, HookResult
from hookagent.kernel._approval import Answer, Question
from hookagent.kernel._dispatch import NO_DECISION, Dispatcher
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolResult


def tool_call(run: RunView, **args: Any) -> ToolCallEvent:
    return ToolCallEvent(run=run, step=1, call_id="c1", tool_name="Bash", args=args)


def event_at(point: HookPoint[Any], run: RunView) -> Any:
    """A plausible event for each point these tests use."""
    if point is BEFORE_TOOL:
        return tool_call(run, command="ls")
    if point is AFTER_TOOL:
        return ToolResultEvent(
            run=run,
            step=1,
            call_id="c1",
            tool_name="Bash",
            args={"command": "ls"},
            result=ToolResult(content="a.txt"),
            duration=0.01,
        )
    if point is ON_ERROR:
        return ErrorEvent(
            run=run,
            step=1,
            error=RuntimeError("x"),
            error_class="tool",
            where="tool:Bash",
            attempt=1,
        )
    if point is NOTIFICATION:
        return NotificationEvent(run=run, kind="idle_prompt", message="waiting")
    if point is SHOULD_CONTINUE:
        return ContinueEvent(run=run, step=1, tool_calls=0)
    if point is BEFORE_STEP:
        return StepEvent(run=run, step=1)
    assert point is EXECUTION_END
    return RunEvent(run=run)


def hooks(point: HookPoint[Any], *fns: Any, **options: Any) -> tuple[Any, ...]:
    return tuple(make_hook(point, fn, **options) for fn in fns)


# -- folding ---------------------------------------------------------------------------


async def test_no_hooks_fold_to_none(run: RunView) -> None:
    """None stands for "no votes": proceed, with the caller's event unchanged."""
    event = tool_call(run, command="ls")
    assert await fold(BEFORE_TOOL, (), event, None) is None
    assert dict(event.args) == {"command": "ls"}


async def test_a_hook_returning_none_runs_but_casts_no_vote(run: RunView) -> None:
    calls: list[ToolCallEvent] = []

    def silent(event: ToolCallEvent) -> None:
        calls.append(event)

    event = tool_call(run)
    assert await fold(BEFORE_TOOL, hooks(BEFORE_TOOL, silent, silent), event, None) is None
    assert calls == [event, event]


async def test_ran_counts_silent_hooks_once_some_hook_votes(run: RunView) -> None:
    registered = (
        make_hook(BEFORE_TOOL, lambda _e: None, name="silent"),
        make_hook(BEFORE_TOOL, lambda _e: HookResult.block("no"), match="Read", name="skipped"),
        make_hook(BEFORE_TOOL, lambda _e: HookResult.context("note"), name="voter"),
        make_hook(BEFORE_TOOL, lambda _e: None, name="silent_too"),
    )
    folded = await fold(BEFORE_TOOL, registered, tool_call(run), None)
    assert folded is not None
    assert folded.ran == 3, "the matcher skipped one; the silent ones ran"
    assert [vote.hook for vote in folded.votes] == ["user:voter"]
    assert folded.outcome == "context"


async def test_each_hook_sees_the_event_as_changed_before_it(run: RunView) -> None:
    seen: list[dict[str, Any]] = []

    def add(key: str, value: int) -> Any:
        def fn(event: ToolCallEvent) -> HookResult:
            seen.append(dict(event.args))
            return HookResult.modify(args={**event.args, key: value})

        return make_hook(BEFORE_TOOL, fn, name=f"add_{key}", kind="transform")

    event = tool_call(run, command="ls")
    registered = (add("a", 1), add("b", 2))
    folded = await fold(BEFORE_TOOL, registered, event, None)

    assert seen == [{"command": "ls"}, {"command": "ls", "a": 1}]
    assert dict(folded.event.args) == {"command": "ls", "a": 1, "b": 2}
    assert dict(event.args) == {"command": "ls"}, "the original event is never mutated"
    assert folded.outcome == "modify"
    assert folded.modified_by == "user:add_b"
    assert folded.decided_by == "user:add_a", "first modifier decides at equal rank"
    assert [vote.changes for vote in folded.votes] == [
        {"args": {"a": {"before": None, "after": 1}}},
        {"args": {"b": {"before": None, "after": 2}}},
    ]


async def test_a_callable_matcher_sees_the_changed_event(run: RunView) -> None:
    def mark(event: ToolCallEvent) -> HookResult:
        return HookResult.modify(args={**event.args, "marked": True})

    registered = (
        make_hook(BEFORE_TOOL, mark, kind="transform"),
        make_hook(
            BEFORE_TOOL, lambda _e: HookResult.block("marked"), match=lambda e: "marked" in e.args
        ),
    )
    folded = await fold(BEFORE_TOOL, registered, tool_call(run), None)
    assert folded.best.kind == "block"


async def test_hooks_whose_matcher_rejects_the_event_do_not_run(run: RunView) -> None:
    calls: list[str] = []
    registered = (
        make_hook(BEFORE_TOOL, lambda _e: calls.append("read"), match="Read", name="read"),
        make_hook(BEFORE_TOOL, lambda _e: calls.append("bash"), match="Bash|Write", name="bash"),
    )
    assert await fold(BEFORE_TOOL, registered, tool_call(run), None) is None
    assert calls == ["bash"]


async def test_the_second_argument_is_the_strongest_result_so_far(run: RunView) -> None:
    got: list[tuple[Any, ...]] = []
    ask = HookResult.ask("sure?")

    def one(event: ToolCallEvent) -> None:
        got.append((event,))

    def two(event: ToolCallEvent, outcome: HookResult) -> None:
        got.append((event, outcome))

    def star(*args: Any) -> None:
        got.append(args)

    registered = (
        make_hook(BEFORE_TOOL, one),
        make_hook(BEFORE_TOOL, two),
        make_hook(BEFORE_TOOL, lambda _e: ask),
        make_hook(BEFORE_TOOL, two),
        make_hook(BEFORE_TOOL, star),
    )
    event = tool_call(run)
    await fold(BEFORE_TOOL, registered, event, None)
    assert got == [(event,), (event, PROCEED), (event, ask), (event, ask)]


async def test_stronger_decision_wins_and_first_wins_a_tie(run: RunView) -> None:
    first, second = HookResult.retry("first"), HookResult.retry("second")
    registered = (
        make_hook(AFTER_TOOL, lambda _e: HookResult.modify(result=ToolResult(content="x"))),
        make_hook(AFTER_TOOL, lambda _e: first, name="first"),
        make_hook(AFTER_TOOL, lambda _e: second, name="second"),
        make_hook(AFTER_TOOL, lambda _e: HookResult.context("note")),
    )
    folded = await fold(AFTER_TOOL, registered, event_at(AFTER_TOOL, run), None)
    assert folded.best is first
    assert folded.decided_by == "user:first"
    assert folded.outcome == "retry"
    assert folded.contexts == ["note"]
    assert [vote.decision for vote in folded.votes] == ["modify", "retry", "retry", "context"]


async def test_later_stop_overrides_an_earlier_ask(run: RunView) -> None:
    registered = (
        make_hook(BEFORE_TOOL, lambda _e: HookResult.ask("ok?"), name="asker"),
        make_hook(BEFORE_TOOL, lambda _e: HookResult.stop("halt"), name="stopper"),
    )
    folded = await fold(BEFORE_TOOL, registered, tool_call(run), None)
    assert folded.best.kind == "stop"
    assert folded.decided_by == "user:stopper"
    assert [hook_id for hook_id, _ in folded.asks] == ["user:asker"]


async def test_after_a_block_only_always_hooks_run_and_see_it(run: RunView) -> None:
    calls: list[str] = []
    block = HookResult.block("no")

    def audit(_event: ToolCallEvent, outcome: HookResult) -> HookResult:
        calls.append(f"audit saw {outcome.kind}")
        return HookResult.context("too late").with_changes(args={"late": True})

    registered = (
        make_hook(BEFORE_TOOL, lambda _e: block, name="deny"),
        make_hook(BEFORE_TOOL, lambda _e: calls.append("skipped"), name="later"),
        make_hook(BEFORE_TOOL, audit, tier="audit", always=True, kind="transform"),
    )
    folded = await fold(BEFORE_TOOL, registered, tool_call(run, command="ls"), None)
    assert calls == ["audit saw block"]
    assert folded.best is block
    assert folded.ran == 2
    assert folded.contexts == [], "context after the final decision is dropped"
    assert dict(folded.event.args) == {"command": "ls"}, "changes after it are dropped too"
    assert folded.votes[-1].hook == "user:audit"
    assert folded.votes[-1].changes == {}


async def test_metadata_patches_merge_into_the_fold_not_the_event(run: RunView) -> None:
    registered = (
        make_hook(BEFORE_TOOL, lambda _e: HookResult.modify(metadata={"a": 1, "b": 1})),
        make_hook(BEFORE_TOOL, lambda _e: HookResult.modify(metadata={"b": 2})),
    )
    event = tool_call(run)
    folded = await fold(BEFORE_TOOL, registered, event, None)
    assert folded.metadata == {"a": 1, "b": 2}
    assert folded.event is event
    assert folded.votes[1].changes == {"metadata": {"b": {"after": 2}}}


async def test_votes_have_durations(run: RunView) -> None:
    registered = hooks(BEFORE_TOOL, lambda _e: HookResult.context("a"), lambda _e: PROCEED)
    folded = await fold(BEFORE_TOOL, registered, tool_call(run), None)
    assert all(vote.duration >= 0 for vote in folded.votes)
    assert folded.duration >= 0


async def test_async_hooks_are_awaited(run: RunView) -> None:
    async def guard(event: ToolCallEvent) -> HookResult:
        return HookResult.block(f"no {event.args['command']}")

    folded = await fold(BEFORE_TOOL, hooks(BEFORE_TOOL, guard), tool_call(run, command="rm"), None)
    assert folded.best.reason == "no rm"


# -- contract errors ---------------------------------------------------------------------


async def _coroutine_result() -> HookResult:
    return HookResult.block("never seen")


CONTRACT_CASES = [
    pytest.param(
        BEFORE_TOOL, "guard", HookResult.retry("again"), "`retry` is not a legal decision"
    ),
    pytest.param(
        BEFORE_TOOL, "guard", HookResult.continue_("go"), "`continue` is not a legal decision"
    ),
    pytest.param(AFTER_TOOL, "guard", HookResult.block("no"), "`block` is not a legal decision"),
    pytest.param(ON_ERROR, "guard", HookResult.ask("?"), "`ask` is not a legal decision"),
    pytest.param(BEFORE_STEP, "guard", HookResult.block("no"), "`block` is not a legal decision"),
    pytest.param(
        BEFORE_TOOL, "guard", HookResult.modify(tool_name="Write"), "cannot modify tool_name"
    ),
    pytest.param(AFTER_TOOL, "guard", HookResult.modify(args={}), "cannot modify args"),
    pytest.param(
        SHOULD_CONTINUE, "guard", HookResult.modify(tool_calls=3), "cannot modify tool_calls"
    ),
    pytest.param(EXECUTION_END, "guard", HookResult.context("hi"), "`context` is not delivered"),
    pytest.param(ON_ERROR, "guard", HookResult.context("hi"), "`context` is not delivered"),
    pytest.param(NOTIFICATION, "observer", HookResult.context("hi"), "`context` is not delivered"),
    pytest.param(BEFORE_TOOL, "guard", "allow", "returned str 'allow'; expected a HookResult"),
    pytest.param(BEFORE_TOOL, "guard", {"decision": "block"}, "returned dict"),
    pytest.param(BEFORE_TOOL, "observer", True, "returned bool"),
    pytest.param(BEFORE_TOOL, "observer", HookResult.block("no"), "may not return `block`"),
    pytest.param(BEFORE_TOOL, "observer", HookResult.stop("no"), "may not return `stop`"),
    pytest.param(BEFORE_TOOL, "transform", HookResult.block("no"), "may not return `block`"),
    pytest.param(BEFORE_TOOL, "transform", HookResult.ask("?"), "may not return `ask`"),
    pytest.param(BEFORE_TOOL, "observer", HookResult.modify(args={}), "may not modify the event"),
]


@pytest.mark.parametrize(("point", "kind", "returned", "problem"), CONTRACT_CASES)
async def test_a_broken_contract_is_a_hook_error_naming_hook_and_point(
    run: RunView, point: HookPoint[Any], kind: Any, returned: object, problem: str
) -> None:
    culprit = make_hook(point, lambda _e: returned, name="culprit", source="cap", kind=kind)
    with pytest.raises(HookError) as caught:
        await fold(point, (culprit,), event_at(point, run), None)
    assert caught.value.hook == "cap:culprit"
    assert caught.value.point == point.name
    assert str(caught.value).startswith(f"hook cap:culprit at {point.name}: ")
    assert problem in str(caught.value)


async def test_an_awaitable_from_a_sync_hook_is_a_hook_error_and_is_closed(run: RunView) -> None:
    made: list[Any] = []

    def sync_fn(_event: ToolCallEvent) -> Any:
        made.append(_coroutine_result())
        return made[-1]

    culprit = make_hook(BEFORE_TOOL, sync_fn, name="culprit")
    assert not culprit.is_async
    with pytest.raises(HookError, match="awaitable from a function registered as sync") as caught:
        await fold(BEFORE_TOOL, (culprit,), tool_call(run), None)
    assert (caught.value.hook, caught.value.point) == ("user:culprit", "before_tool")
    assert inspect.getcoroutinestate(made[0]) == inspect.CORO_CLOSED


async def test_a_broken_contract_raises_even_from_a_fail_open_hook(run: RunView) -> None:
    observer = make_hook(BEFORE_TOOL, lambda _e: "ok", name="noisy", kind="observer")
    assert observer.on_failure == "proceed"
    with pytest.raises(HookError, match="hook user:noisy at before_tool"):
        await fold(BEFORE_TOOL, (observer,), tool_call(run), None)


async def test_a_broken_contract_raises_from_an_always_hook_after_the_end(run: RunView) -> None:
    registered = (
        make_hook(BEFORE_TOOL, lambda _e: HookResult.block("no")),
        make_hook(BEFORE_TOOL, lambda _e: HookResult.retry("x"), name="audit", always=True),
    )
    with pytest.raises(HookError, match="hook user:audit at before_tool"):
        await fold(BEFORE_TOOL, registered, tool_call(run), None)


# -- decision records through Dispatcher.fire -------------------------------------------


def dispatcher(registry: HookRegistry, state: RunState, run: RunView, **options: Any) -> Dispatcher:
    options = {"approver": None, "watch": None, **options}
    return Dispatcher(registry, state, run, **options)


async def test_fire_records_a_decision_naming_every_vote(state: RunState, run: RunView) -> None:
    def rewrite(event: ToolCallEvent) -> HookResult:
        return HookResult.modify(args={**event.args, "command": "ls -a"}, metadata={"seen": 1})

    registry = HookRegistry(
        [
            make_hook(BEFORE_TOOL, rewrite, name="rewrite", kind="transform"),
            make_hook(BEFORE_TOOL, lambda _e: None, name="quiet"),
            make_hook(BEFORE_TOOL, lambda _e: HookResult.block("no listing"), name="deny"),
        ]
    )
    state.position.step = 3
    decision, event = await dispatcher(registry, state, run).fire(
        BEFORE_TOOL, tool_call(run, command="ls")
    )

    assert (decision.point, decision.run_id, decision.step, decision.call_id) == (
        "before_tool",
        "run-1",
        3,
        "c1",
    )
    assert (decision.outcome, decision.reason, decision.hook) == (
        "block",
        "no listing",
        "user:deny",
    )
    assert decision.ran == 3
    assert [(vote.hook, vote.decision, vote.reason) for vote in decision.votes] == [
        ("user:rewrite", "modify", None),
        ("user:deny", "block", "no listing"),
    ]
    assert decision.votes[0].changes == {
        "args": {"command": {"before": "ls", "after": "ls -a"}},
        "metadata": {"seen": {"after": 1}},
    }
    assert decision.changed
    assert all(vote.duration >= 0 for vote in decision.votes)
    assert decision.duration >= 0
    assert decision.stop_reason is None
    assert dict(event.args) == {"command": "ls -a"}
    assert list(state.decisions) == [decision]
    assert list(run.decisions) == [decision]
    assert list(state.decisions) == [decision]
    assert state.metadata == {"seen": 1}


async def test_fire_applies_metadata_patches_to_the_run(state: RunState, run: RunView) -> None:
    state.metadata["kept"] = "yes"
    registry = HookRegistry(
        [
            make_hook(ON_ERROR, lambda _e: HookResult.modify(metadata={"a": 1, "b": 1})),
            make_hook(ON_ERROR, lambda _e: HookResult.modify(metadata={"b": 2})),
        ]
    )
    decision, _ = await dispatcher(registry, state, run).fire(ON_ERROR, event_at(ON_ERROR, run))
    assert decision.outcome == "modify"
    assert state.metadata == {"kept": "yes", "a": 1, "b": 2}
    assert run.metadata["b"] == 2


async def test_fire_records_a_stop_reason(state: RunState, run: RunView) -> None:
    registry = HookRegistry(
        [
            make_hook(
                SHOULD_CONTINUE, lambda _e: HookResult.stop("budget", stop_reason="token_limit")
            )
        ]
    )
    decision, _ = await dispatcher(registry, state, run).fire(
        SHOULD_CONTINUE, event_at(SHOULD_CONTINUE, run)
    )
    assert (decision.outcome, decision.stop_reason, decision.call_id) == (
        "stop",
        "token_limit",
        None,
    )


async def test_fire_records_nothing_for_a_fold_whose_hooks_all_proceeded(
    state: RunState, run: RunView
) -> None:
    calls: list[str] = []
    registry = HookRegistry(
        [
            make_hook(BEFORE_TOOL, lambda _e: calls.append("first"), name="first"),
            make_hook(BEFORE_TOOL, lambda _e: calls.append("second"), name="second"),
        ]
    )
    event = tool_call(run)
    decision, after = await dispatcher(registry, state, run).fire(BEFORE_TOOL, event)
    assert calls == ["first", "second"], "both hooks ran"
    assert decision is NO_DECISION
    assert decision.outcome == "proceed"
    assert after is event
    assert state.decisions == []
    assert list(state.decisions) == []
    assert state.metadata == {}


ROUTINE_CASES = [
    pytest.param(SHOULD_CONTINUE, "transform", HookResult.continue_("tools called"), id="continue"),
    pytest.param(BEFORE_TOOL, "guard", PROCEED, id="proceed"),
]


@pytest.mark.parametrize(("point", "kind", "result"), ROUTINE_CASES)
async def test_fire_does_not_record_a_quiet_hooks_routine_vote(
    state: RunState, run: RunView, point: HookPoint[Any], kind: Any, result: HookResult
) -> None:
    calls: list[str] = []
    registry = HookRegistry(
        [
            make_hook(point, lambda _e: result, name="routine", kind=kind, quiet=True),
            make_hook(point, lambda _e: calls.append("silent"), name="silent"),
        ]
    )
    event = event_at(point, run)
    decision, after = await dispatcher(registry, state, run).fire(point, event)
    assert calls == ["silent"], "a loud hook that casts no vote keeps the fold quiet"
    assert decision.outcome == result.kind
    assert after is event
    assert state.decisions == []
    assert list(state.decisions) == []


def _quiet_continue_and_loud_proceed() -> list[Any]:
    return [
        make_hook(SHOULD_CONTINUE, lambda _e: HookResult.continue_("more"), quiet=True),
        make_hook(SHOULD_CONTINUE, lambda _e: PROCEED, name="loud"),
    ]


NOTEWORTHY_CASES = [
    pytest.param(
        [make_hook(SHOULD_CONTINUE, lambda _e: HookResult.stop("done"), quiet=True)],
        "stop",
        id="stop",
    ),
    pytest.param(
        [make_hook(SHOULD_CONTINUE, lambda _e: HookResult.context("note"), quiet=True)],
        "context",
        id="context",
    ),
    pytest.param(
        [
            make_hook(
                SHOULD_CONTINUE,
                lambda _e: HookResult.continue_("more").with_context("note"),
                quiet=True,
            )
        ],
        "continue",
        id="continue with context",
    ),
    pytest.param(
        [make_hook(SHOULD_CONTINUE, lambda _e: HookResult.modify(metadata={"n": 1}), quiet=True)],
        "modify",
        id="metadata",
    ),
    pytest.param(_quiet_continue_and_loud_proceed(), "continue", id="a loud vote beside"),
]


@pytest.mark.parametrize(("registered", "outcome"), NOTEWORTHY_CASES)
async def test_fire_records_a_quiet_hooks_vote_that_is_not_routine(
    state: RunState, run: RunView, registered: list[Any], outcome: str
) -> None:
    decision, _ = await dispatcher(HookRegistry(registered), state, run).fire(
        SHOULD_CONTINUE, event_at(SHOULD_CONTINUE, run)
    )
    assert decision.outcome == outcome
    assert (decision.point, decision.run_id) == ("should_continue", "run-1")
    assert decision.votes
    assert list(state.decisions) == [decision]
    assert list(state.decisions) == [decision]


@pytest.mark.parametrize(
    "registered",
    [
        pytest.param([], id="no hooks"),
        pytest.param([make_hook(AFTER_TOOL, lambda _e: HookResult.stop("x"))], id="other point"),
        pytest.param(
            [make_hook(BEFORE_TOOL, lambda _e: HookResult.block("x"), match="Read|Write")],
            id="no match",
        ),
    ],
)
async def test_fire_records_nothing_when_no_hook_ran(
    state: RunState, run: RunView, registered: list[Any]
) -> None:
    event = tool_call(run)
    decision, after = await dispatcher(HookRegistry(registered), state, run).fire(
        BEFORE_TOOL, event
    )
    assert decision is NO_DECISION
    assert after is event
    assert state.decisions == []
    assert list(state.decisions) == []
    assert state.metadata == {}


async def test_fire_settles_an_ask_through_the_approver(state: RunState, run: RunView) -> None:
    questions: list[Question] = []

    def approver(question: Question) -> Answer:
        questions.append(question)
        return Answer.approve()

    registry = HookRegistry([make_hook(BEFORE_TOOL, lambda _e: HookResult.ask("run ls?"))])
    decision, _ = await dispatcher(registry, state, run, approver=approver).fire(
        BEFORE_TOOL, tool_call(run, command="ls")
    )
    assert decision.answer == "approved"
    assert decision.outcome == "ask"  # recorded as asked, and let through
    assert [(q.hook, q.question, q.tool_name, q.call_id) for q in questions] == [
        ("user:<lambda>", "run ls?", "Bash", "c1")
    ]


async def test_fire_turns_a_denied_ask_into_a_block(state: RunState, run: RunView) -> None:
    registry = HookRegistry([make_hook(BEFORE_TOOL, lambda _e: HookResult.ask("rm?"), name="q")])
    decision, _ = await dispatcher(registry, state, run, approver=lambda _q: False).fire(
        BEFORE_TOOL, tool_call(run)
    )
    assert decision.outcome == "block"
    assert decision.hook == "user:q"
    assert decision.reason is not None
    assert "user:q asked 'rm?'; denied" in decision.reason


async def test_fire_without_an_approver_denies_an_ask(state: RunState, run: RunView) -> None:
    registry = HookRegistry([make_hook(BEFORE_STEP, lambda _e: HookResult.ask("go on?"))])
    decision, _ = await dispatcher(registry, state, run).fire(
        BEFORE_STEP, event_at(BEFORE_STEP, run)
    )
    assert decision.outcome == "stop", "before_step cannot block, so a denial stops the run"
    assert decision.stop_reason == "guard"
    assert decision.answer is not None
    assert "no approver" in decision.answer

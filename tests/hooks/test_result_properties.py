"""Property tests of the fold's combining rules.

Random hook lists (random decisions, transforms, contexts, metadata patches, tiers, priorities
and `always` flags) run through the real registry and engine; a small model written here from
DESIGN §2 predicts the outcome, and the two must agree:

- order: tier (system < policy < default < audit), priority high → low, registration;
- outcome: the max by ``stop > block > ask > retry/continue > modify > proceed``, first hook
  winning at equal rank and named by `decided_by`;
- after the first block/stop only `always` hooks run, and they see the final decision;
- contexts, event changes and metadata patches count only from hooks that ran before the fold
  became final; each hook sees the event as changed by the ones before it; metadata patches
  merge in order, later keys winning;
- a fold in which no hook voted returns None, which stands for: outcome proceed, the event
  unchanged, no contexts, no metadata, no asks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookagent.hooks._engine import Folded, fold
from hookagent.hooks._events import ErrorEvent, StopEvent, ToolCallEvent, ToolResultEvent
from hookagent.hooks._hook import make_hook
from hookagent.hooks._points import AFTER_TOOL, BEFORE_TOOL, ON_ERROR, STOP, HookPoint
from hookagent.hooks._registry import HookRegistry
from hookagent.hooks._result import PROCEED, HookResult
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolResult

TIER_ORDER = ("system", "policy", "default", "audit")
PRECEDENCE = {
    "proceed": 0,
    "context": 0,
    "modify": 1,
    "retry": 2,
    "continue": 2,
    "ask": 3,
    "block": 4,
    "stop": 5,
}
FINAL = ("block", "stop")
PROPERTY_SETTINGS = settings(max_examples=200, deadline=None, derandomize=True, database=None)


@dataclass(frozen=True)
class Case:
    """A point under test and how to build, rewrite and read its event."""

    point: HookPoint[Any]
    decisions: tuple[str, ...]
    make_event: Callable[[RunView], Any]
    rewrite: Callable[[Any, int], dict[str, Any]] | None
    """Changes that append hook `i` to the event's trail; None where no event field is writable."""
    trail: Callable[[Any], tuple[int, ...]]
    contexts: bool


def _trail_of(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part)


CASES = (
    Case(
        point=BEFORE_TOOL,
        decisions=("block", "ask", "stop"),
        make_event=lambda run: ToolCallEvent(
            run=run, step=1, call_id="c1", tool_name="Bash", args={"trail": ()}
        ),
        rewrite=lambda event, i: {"args": {**event.args, "trail": (*event.args["trail"], i)}},
        trail=lambda event: event.args["trail"],
        contexts=True,
    ),
    Case(
        point=AFTER_TOOL,
        decisions=("retry", "stop"),
        make_event=lambda run: ToolResultEvent(
            run=run,
            step=1,
            call_id="c1",
            tool_name="Bash",
            args={},
            result=ToolResult(content=""),
            duration=0.0,
        ),
        rewrite=lambda event, i: {"result": ToolResult(content=f"{event.result.content}{i},")},
        trail=lambda event: _trail_of(event.result.content),
        contexts=True,
    ),
    Case(
        point=STOP,
        decisions=("block", "ask", "stop"),
        make_event=lambda run: StopEvent(run=run, step=1, output="", stop_hook_active=False),
        rewrite=lambda event, i: {"output": f"{event.output}{i},"},
        trail=lambda event: _trail_of(event.output),
        contexts=True,
    ),
    Case(
        point=ON_ERROR,
        decisions=("retry", "continue", "stop"),
        make_event=lambda run: ErrorEvent(
            run=run,
            step=1,
            error=RuntimeError("tool broke"),
            error_class="tool",
            where="tool:Bash",
            attempt=1,
        ),
        rewrite=None,
        trail=lambda event: (),
        contexts=False,
    ),
)


@dataclass(frozen=True)
class Spec:
    """What one generated hook does. `decision="none"` returns None (no vote)."""

    decision: str
    rewrite: bool
    context: bool
    metadata: dict[str, int] | None
    always: bool
    tier: str
    priority: int

    @property
    def label(self) -> str:
        if self.decision not in ("none", "proceed"):
            return self.decision
        if self.rewrite or self.metadata:
            return "modify"
        return "context" if self.context else "proceed"


def specs(case: Case) -> st.SearchStrategy[list[Spec]]:
    spec = st.builds(
        Spec,
        decision=st.sampled_from(("none", "proceed", *case.decisions)),
        rewrite=st.booleans() if case.rewrite is not None else st.just(False),
        context=st.booleans() if case.contexts else st.just(False),
        metadata=st.none()
        | st.dictionaries(st.sampled_from("abc"), st.integers(0, 9), min_size=1, max_size=2),
        always=st.booleans(),
        tier=st.sampled_from(TIER_ORDER),
        priority=st.integers(-2, 2),
    )
    return st.lists(spec, max_size=8)


def build_result(case: Case, spec: Spec, event: Any, i: int) -> HookResult | None:
    if spec.decision == "none":
        return None
    result = {
        "proceed": PROCEED,
        "block": HookResult.block(f"block {i}"),
        "ask": HookResult.ask(f"ask {i}"),
        "retry": HookResult.retry(f"retry {i}"),
        "continue": HookResult.continue_(f"continue {i}"),
        "stop": HookResult.stop(f"stop {i}"),
    }[spec.decision]
    changes: dict[str, Any] = {}
    if spec.rewrite and case.rewrite is not None:
        changes.update(case.rewrite(event, i))
    if spec.metadata is not None:
        changes["metadata"] = spec.metadata
    if changes:
        result = result.with_changes(**changes)
    if spec.context:
        result = result.with_context(f"context {i}")
    return result


@dataclass
class Seen:
    index: int
    trail: tuple[int, ...]
    outcome: HookResult


@dataclass
class Expected:
    """What the model of DESIGN §2 predicts for one fold."""

    ran: list[int]
    seen: dict[int, tuple[tuple[int, ...], int | None]]
    """Hook index → (trail it should see, index of the hook whose result it should get)."""
    decider: int | None
    best_label: str
    contexts: list[str]
    metadata: dict[str, int] | None
    trail: list[int]
    votes: list[tuple[str, str]]
    asks: list[str]

    @property
    def outcome(self) -> str:
        if self.best_label != "proceed":
            return self.best_label
        return "context" if self.contexts else "proceed"


def predict(case: Case, specs: list[Spec]) -> Expected:
    order = sorted(
        range(len(specs)),
        key=lambda i: (TIER_ORDER.index(specs[i].tier), -specs[i].priority, i),
    )
    out = Expected([], {}, None, "proceed", [], None, [], [], [])
    final = False
    for i in order:
        spec = specs[i]
        if final and not spec.always:
            continue
        out.ran.append(i)
        out.seen[i] = (tuple(out.trail), out.decider)
        if spec.decision == "none":
            continue
        out.votes.append((f"user:h{i}", spec.label))
        if not final:
            if spec.rewrite:
                out.trail.append(i)
            if spec.metadata:
                out.metadata = {**(out.metadata or {}), **spec.metadata}
            if spec.context:
                out.contexts.append(f"context {i}")
            if spec.decision == "ask":
                out.asks.append(f"user:h{i}")
        if PRECEDENCE[spec.label] > PRECEDENCE[out.best_label]:
            out.best_label = spec.label
            out.decider = i
        final = out.best_label in FINAL
    return out


def run_fold(
    case: Case, specs: list[Spec]
) -> tuple[Folded[Any] | None, Any, list[Seen], dict[int, Any]]:
    """Fold the hooks `specs` describe; returns the fold, the original event and what the
    hooks saw and returned."""
    seen: list[Seen] = []
    results: dict[int, Any] = {}

    def make_fn(i: int, spec: Spec) -> Callable[[Any, HookResult], HookResult | None]:
        def fn(event: Any, outcome: HookResult) -> HookResult | None:
            seen.append(Seen(i, case.trail(event), outcome))
            results[i] = build_result(case, spec, event, i)
            return results[i]

        return fn

    registry = HookRegistry(
        make_hook(
            case.point,
            make_fn(i, spec),
            name=f"h{i}",
            tier=spec.tier,  # type: ignore[arg-type]  # drawn from the four tier names
            priority=spec.priority,
            always=spec.always,
        )
        for i, spec in enumerate(specs)
    )
    event = case.make_event(RunView(RunState(run_id="prop")))
    folded = asyncio.run(fold(case.point, registry.at(case.point), event, None))
    return folded, event, seen, results


def check_fold(case: Case, hook_specs: list[Spec]) -> None:
    returned, event, seen, results = run_fold(case, hook_specs)
    expected = predict(case, hook_specs)

    assert [entry.index for entry in seen] == expected.ran
    assert (returned is None) == (not expected.votes), "None exactly when no hook voted"
    if returned is None:
        # No votes: proceed, the event unchanged, no contexts, no metadata (`ran` is not
        # reported; which hooks ran is checked through `seen` above).
        folded = Folded(event=event)
    else:
        folded = returned
        assert folded.ran == len(expected.ran)
    for entry in seen:
        trail, decider = expected.seen[entry.index]
        assert entry.trail == trail, f"hook {entry.index} saw a stale event"
        assert entry.outcome is (PROCEED if decider is None else results[decider])

    assert folded.outcome == expected.outcome
    if expected.decider is None:
        assert folded.best is PROCEED
        assert folded.decided_by is None
    else:
        assert folded.best is results[expected.decider]
        assert folded.decided_by == f"user:h{expected.decider}"
    assert folded.contexts == expected.contexts
    assert folded.metadata == expected.metadata
    assert case.trail(folded.event) == tuple(expected.trail)
    assert [(vote.hook, vote.decision) for vote in folded.votes] == expected.votes
    assert [hook_id for hook_id, _ in folded.asks] == expected.asks

    # Said directly: once a block or stop is in, only `always` hooks run, seeing it.
    ended = False
    for entry in seen:
        if ended:
            assert hook_specs[entry.index].always, f"hook {entry.index} ran after the fold ended"
            assert entry.outcome.is_final
        result = results[entry.index]
        ended = ended or (result is not None and result.is_final)
    assert folded.best.is_final == ended


def fold_property(case: Case) -> Callable[[], None]:
    """One property test per point (a strategy per point, drawn without `st.data()`)."""

    @PROPERTY_SETTINGS
    @given(hook_specs=specs(case))
    def test(hook_specs: list[Spec]) -> None:
        check_fold(case, hook_specs)

    test.__doc__ = f"The fold at {case.point.name} agrees with the precedence model."
    return test


test_fold_at_before_tool = fold_property(CASES[0])
test_fold_at_after_tool = fold_property(CASES[1])
test_fold_at_stop = fold_property(CASES[2])
test_fold_at_on_error = fold_property(CASES[3])


@PROPERTY_SETTINGS
@given(
    patches=st.lists(
        st.dictionaries(st.sampled_from("abcd"), st.integers(), min_size=1, max_size=3),
        max_size=6,
    )
)
def test_metadata_patches_merge_in_order(patches: list[dict[str, int]]) -> None:
    def patcher(patch: dict[str, int]) -> Callable[[Any], HookResult]:
        return lambda _event: HookResult.modify(metadata=patch)

    hooks = tuple(
        make_hook(ON_ERROR, patcher(patch), name=f"m{i}") for i, patch in enumerate(patches)
    )
    event = CASES[3].make_event(RunView(RunState()))
    folded = asyncio.run(fold(ON_ERROR, hooks, event, None))
    if not patches:
        assert folded is None, "no hooks, no votes"
        return
    merged: dict[str, int] = {}
    for patch in patches:
        merged.update(patch)
    assert folded is not None
    assert folded.metadata == merged
    assert folded.outcome == "modify"
    assert folded.event is event, "metadata merges into the fold, not the event"

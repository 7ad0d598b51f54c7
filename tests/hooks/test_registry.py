"""Registration: `make_hook` checks and normalises; the registry orders once, folds snapshot."""

from __future__ import annotations

import math
from typing import Any

import pytest

from hookagent._errors import ConfigError, HookagentError, RunError
from hookagent.hooks._engine import fold
from hookagent.hooks._events import StepEvent, ToolCallEvent
from hookagent.hooks._hook import DEFAULT_HOOK_TIMEOUT, Hook, make_hook
from hookagent.hooks._matchers import AnyOf
from hookagent.hooks._points import (
    AFTER_TOOL,
    BEFORE_STEP,
    BEFORE_TOOL,
    EXECUTION_END,
    SHOULD_CONTINUE,
    STOP,
)
from hookagent.hooks._registry import HookRegistry
from hookagent.hooks._result import HookResult
from hookagent.kernel._view import RunView


def noop(_event: Any) -> None:
    return None


def named(name: str, **options: Any) -> Hook[Any]:
    return make_hook(BEFORE_TOOL, noop, name=name, **options)


def names(registry: HookRegistry) -> list[str]:
    return [hook.name for hook in registry.at(BEFORE_TOOL)]


def tool_call(run: RunView) -> ToolCallEvent:
    return ToolCallEvent(run=run, step=1, call_id="c1", tool_name="Bash", args={})


# -- ordering ----------------------------------------------------------------------------


def test_tiers_order_before_priority_and_registration() -> None:
    registry = HookRegistry(
        [
            named("audit", tier="audit", priority=100),
            named("default", tier="default", priority=100),
            named("policy", tier="policy", priority=-100),
            named("system", tier="system", priority=-100),
        ]
    )
    assert names(registry) == ["system", "policy", "default", "audit"]


def test_priority_runs_high_to_low_within_a_tier() -> None:
    registry = HookRegistry([named("low", priority=-1), named("mid"), named("high", priority=10)])
    assert names(registry) == ["high", "mid", "low"]


def test_registration_order_breaks_ties() -> None:
    registry = HookRegistry([named("a"), named("b")])
    registry.add(named("c"))
    registry.add(named("first", priority=1))
    assert names(registry) == ["first", "a", "b", "c"]


def test_mixed_ordering() -> None:
    registry = HookRegistry()
    for hook in (
        named("d1"),
        named("p1", tier="policy"),
        named("d2", priority=5),
        named("a1", tier="audit", priority=99),
        named("p2", tier="policy", priority=5),
        named("d3", priority=5),
        named("s1", tier="system"),
    ):
        registry.add(hook)
    assert names(registry) == ["s1", "p2", "p1", "d2", "d3", "d1", "a1"]


def test_points_are_kept_apart() -> None:
    registry = HookRegistry([named("tool"), make_hook(STOP, noop, name="stop")])
    assert [hook.name for hook in registry.at(STOP)] == ["stop"]
    assert names(registry) == ["tool"]
    assert registry.at(AFTER_TOOL) == ()


def test_at_hands_out_a_cached_tuple() -> None:
    registry = HookRegistry([named("a"), named("b")])
    hooks = registry.at(BEFORE_TOOL)
    assert isinstance(hooks, tuple)
    assert registry.at(BEFORE_TOOL) is hooks
    registry.add(named("c"))
    assert registry.at(BEFORE_TOOL) is not hooks
    assert [hook.name for hook in hooks] == ["a", "b"], "an old snapshot never changes"


def test_len_and_iteration_cover_every_point() -> None:
    registry = HookRegistry([named("a"), make_hook(STOP, noop, name="s"), named("b")])
    assert len(registry) == 3
    assert sorted(hook.name for hook in registry) == ["a", "b", "s"]


def test_remove_drops_matching_hooks_and_keeps_order() -> None:
    registry = HookRegistry(
        [named("a"), named("drop1"), make_hook(STOP, noop, name="drop2"), named("b")]
    )
    assert registry.remove(lambda hook: hook.name.startswith("drop")) == 2
    assert names(registry) == ["a", "b"]
    assert registry.at(STOP) == ()
    assert len(registry) == 2
    assert registry.remove(lambda hook: False) == 0


def test_copy_is_independent() -> None:
    original = HookRegistry([named("a")])
    clone = original.copy()
    clone.add(named("b", priority=1))
    original.add(named("c"))
    assert names(original) == ["a", "c"]
    assert names(clone) == ["b", "a"]
    clone.add(named("d"))
    assert names(clone) == ["b", "a", "d"], "registration order continues after a copy"


async def test_a_hook_registered_mid_fold_waits_for_the_next_fold(run: RunView) -> None:
    registry = HookRegistry()
    calls: list[str] = []

    def late(_event: ToolCallEvent) -> None:
        calls.append("late")

    def registrar(_event: ToolCallEvent) -> None:
        calls.append("registrar")
        if len(calls) == 1:
            registry.add(make_hook(BEFORE_TOOL, late, name="late", priority=-1))

    registry.add(make_hook(BEFORE_TOOL, registrar, name="registrar"))
    assert await fold(BEFORE_TOOL, registry.at(BEFORE_TOOL), tool_call(run), None) is None
    assert calls == ["registrar"]
    await fold(BEFORE_TOOL, registry.at(BEFORE_TOOL), tool_call(run), None)
    assert calls == ["registrar", "registrar", "late"]


async def test_a_hook_removed_mid_fold_still_runs_in_that_fold(run: RunView) -> None:
    registry = HookRegistry()
    calls: list[str] = []

    def remover(_event: ToolCallEvent) -> None:
        calls.append("remover")
        registry.remove(lambda hook: hook.name == "victim")

    registry.add(make_hook(BEFORE_TOOL, remover, name="remover", priority=1))
    registry.add(make_hook(BEFORE_TOOL, lambda _e: calls.append("victim"), name="victim"))
    await fold(BEFORE_TOOL, registry.at(BEFORE_TOOL), tool_call(run), None)
    assert calls == ["remover", "victim"]
    assert names(registry) == ["remover"]


# -- make_hook: normalisation -----------------------------------------------------------


def test_defaults() -> None:
    hook = make_hook(BEFORE_TOOL, noop)
    assert hook.name == "noop"
    assert hook.source == "user"
    assert hook.id == "user:noop"
    assert (hook.tier, hook.kind, hook.priority) == ("default", "guard", 0)
    assert hook.timeout == DEFAULT_HOOK_TIMEOUT
    assert hook.on_failure == "block"
    assert hook.match is None
    assert not hook.always
    assert not hook.blocking
    assert not hook.quiet
    assert not hook.is_async
    assert not hook.wants_outcome


def test_name_and_source_make_the_id() -> None:
    hook = make_hook(BEFORE_TOOL, noop, name="deny_rm", source="bash")
    assert hook.id == "bash:deny_rm"
    assert "bash" in repr(hook)
    assert "deny_rm" in repr(hook)


@pytest.mark.parametrize(
    ("kind", "on_failure"), [("guard", "block"), ("transform", "proceed"), ("observer", "proceed")]
)
def test_on_failure_follows_the_kind(kind: Any, on_failure: str) -> None:
    assert make_hook(BEFORE_TOOL, noop, kind=kind).on_failure == on_failure


def test_on_failure_can_be_overridden() -> None:
    assert make_hook(BEFORE_TOOL, noop, kind="observer", on_failure="raise").on_failure == "raise"


def test_allowed_decisions_are_the_point_s_within_the_kind_s() -> None:
    assert make_hook(BEFORE_TOOL, noop).allowed == {"proceed", "block", "ask", "stop"}
    assert make_hook(AFTER_TOOL, noop).allowed == {"proceed", "retry", "stop"}
    assert make_hook(AFTER_TOOL, noop, kind="transform").allowed == {"proceed", "retry"}
    assert make_hook(SHOULD_CONTINUE, noop, kind="transform").allowed == {"proceed", "continue"}
    assert make_hook(BEFORE_TOOL, noop, kind="observer").allowed == {"proceed"}


def test_modify_and_context_permissions() -> None:
    assert make_hook(BEFORE_TOOL, noop, kind="transform").may_modify
    assert not make_hook(BEFORE_TOOL, noop, kind="observer").may_modify
    assert make_hook(BEFORE_TOOL, noop, kind="observer").may_context
    assert not make_hook(EXECUTION_END, noop).may_context


def test_async_detection() -> None:
    async def fn(_event: Any) -> None:
        return None

    class AsyncCallable:
        async def __call__(self, _event: Any) -> None:
            return None

    assert make_hook(BEFORE_TOOL, fn).is_async
    assert make_hook(BEFORE_TOOL, AsyncCallable()).is_async
    assert make_hook(BEFORE_TOOL, noop, blocking=True).is_async, "blocking hooks are awaited"


def test_outcome_argument_detection() -> None:
    def two(_event: Any, _outcome: HookResult) -> None:
        return None

    def star(*_args: Any) -> None:
        return None

    class Method:
        def check(self, _event: Any) -> None:
            return None

    assert make_hook(BEFORE_TOOL, two).wants_outcome
    assert make_hook(BEFORE_TOOL, star).wants_outcome
    assert not make_hook(BEFORE_TOOL, Method().check).wants_outcome
    assert not make_hook(BEFORE_TOOL, lambda _event: None).wants_outcome


def test_a_name_matcher_is_compiled() -> None:
    hook = make_hook(BEFORE_TOOL, noop, match="Read|Write")
    assert hook.match is not None
    assert hook.match.accepts("Write", None)
    assert not hook.match.accepts("Bash", None)
    assert make_hook(BEFORE_TOOL, noop, match="*").match is None


# -- make_hook: misuse -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        pytest.param({"tier": "urgent"}, "tier must be one of", id="tier"),
        pytest.param({"kind": "validator"}, "kind must be guard, transform or observer", id="kind"),
        pytest.param({"timeout": 0}, "timeout must be a positive number", id="zero-timeout"),
        pytest.param({"timeout": -1.0}, "timeout must be a positive number", id="negative"),
        pytest.param({"timeout": math.nan}, "timeout must be a positive number", id="nan"),
    ],
)
def test_bad_options_are_config_errors(options: dict[str, Any], problem: str) -> None:
    with pytest.raises(ConfigError, match=problem) as caught:
        make_hook(BEFORE_TOOL, noop, name="bad", **options)
    assert caught.value.key == "hook user:bad at before_tool"
    assert str(caught.value).startswith("hook user:bad at before_tool: ")


def test_no_timeout_is_allowed() -> None:
    assert make_hook(BEFORE_TOOL, noop, timeout=None).timeout is None


@pytest.mark.parametrize("match", ["Bash", "read_*", "/^mcp__/", AnyOf("Bash", lambda e: True)])
def test_a_name_matcher_at_a_point_without_subject_is_a_config_error(match: Any) -> None:
    with pytest.raises(ConfigError, match="before_step events have no name to match"):
        make_hook(BEFORE_STEP, noop, match=match)


async def test_a_callable_matcher_works_at_a_point_without_subject(run: RunView) -> None:
    steps: list[int] = []

    def stop(event: StepEvent) -> HookResult:
        steps.append(event.step)
        return HookResult.stop("late")

    hook = make_hook(BEFORE_STEP, stop, match=lambda e: e.step > 2)
    early = await fold(BEFORE_STEP, (hook,), StepEvent(run=run, step=1), None)
    late = await fold(BEFORE_STEP, (hook,), StepEvent(run=run, step=3), None)
    assert early is None
    assert late is not None
    assert late.best.kind == "stop"
    assert steps == [3]


def test_blocking_on_an_async_function_is_a_config_error() -> None:
    async def fn(_event: Any) -> None:
        return None

    with pytest.raises(ConfigError, match="blocking=True is for sync functions"):
        make_hook(BEFORE_TOOL, fn, blocking=True)


@pytest.mark.parametrize("fn", ["not a function", None, 42])
def test_a_non_callable_is_a_config_error(fn: Any) -> None:
    with pytest.raises(ConfigError, match="is not callable"):
        make_hook(BEFORE_TOOL, fn, name="x")


def test_config_errors_are_misuse_not_run_failures() -> None:
    with pytest.raises(ConfigError) as caught:
        make_hook(BEFORE_TOOL, noop, tier="nope")  # type: ignore[arg-type]  # misuse on purpose
    assert isinstance(caught.value, HookagentError)
    assert not isinstance(caught.value, RunError)


def test_a_bad_on_failure_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="on_failure"):
        make_hook(BEFORE_TOOL, noop, on_failure="explode")  # type: ignore[arg-type]

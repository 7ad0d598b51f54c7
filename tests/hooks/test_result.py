"""HookResult: named constructors, chaining, and how a result reads (label, rank, finality)."""

from __future__ import annotations

import dataclasses

import pytest

from hookagent.hooks._result import PROCEED, RANK, AskSpec, HookResult


def test_proceed_is_the_shared_empty_result() -> None:
    result = HookResult.proceed()
    assert result is PROCEED
    assert result.kind == "proceed"
    assert dict(result.changes) == {}
    assert result.contexts == ()
    assert result.reason is None
    assert result.label == "proceed"
    assert result.rank == 0
    assert not result.is_final


def test_modify_carries_changes_as_a_read_only_mapping() -> None:
    result = HookResult.modify(args={"command": "ls"}, metadata={"k": 1})
    assert result.kind == "proceed"
    assert dict(result.changes) == {"args": {"command": "ls"}, "metadata": {"k": 1}}
    assert result.label == "modify"
    assert result.rank == 1
    with pytest.raises(TypeError):
        result.changes["args"] = {}  # type: ignore[index]  # the mapping is read-only


def test_modify_without_changes_is_a_plain_proceed() -> None:
    result = HookResult.modify()
    assert result.label == "proceed"
    assert result.rank == 0


def test_modify_copies_its_input() -> None:
    changes = {"args": {"a": 1}}
    result = HookResult.modify(**changes)
    changes["args"] = {"a": 2}
    assert result.changes["args"] == {"a": 1}


def test_context() -> None:
    result = HookResult.context("remember the rules")
    assert result.kind == "proceed"
    assert result.contexts == ("remember the rules",)
    assert result.label == "context"
    assert result.rank == 0


def test_block() -> None:
    result = HookResult.block("no rm -rf")
    assert result.kind == "block"
    assert result.reason == "no rm -rf"
    assert result.label == "block"
    assert result.rank == RANK["block"] == 4
    assert result.is_final


def test_ask_builds_its_spec() -> None:
    result = HookResult.ask("run it?", options=["yes", "no"], timeout=5.0, default="approve")
    assert result.kind == "ask"
    assert result.reason == "run it?"
    assert result.ask_spec == AskSpec(
        question="run it?", options=("yes", "no"), timeout=5.0, default="approve"
    )
    assert result.label == "ask"
    assert result.rank == 3
    assert not result.is_final


def test_ask_defaults_to_deny_without_timeout() -> None:
    spec = HookResult.ask("ok?").ask_spec
    assert spec == AskSpec(question="ok?")
    assert spec is not None
    assert spec.options == ()
    assert spec.timeout is None
    assert spec.default == "deny"


def test_retry() -> None:
    result = HookResult.retry("bad json", feedback="answer in JSON")
    assert (result.kind, result.reason, result.message) == ("retry", "bad json", "answer in JSON")
    assert result.label == "retry"
    assert result.rank == 2
    assert not result.is_final
    assert HookResult.retry("again").message is None


def test_continue() -> None:
    result = HookResult.continue_("not done", message="keep going")
    assert (result.kind, result.reason, result.message) == ("continue", "not done", "keep going")
    assert result.label == "continue"
    assert result.rank == 2
    assert not result.is_final
    assert HookResult.continue_("more").message is None


def test_stop() -> None:
    result = HookResult.stop("enough")
    assert (result.kind, result.reason, result.stop_reason) == ("stop", "enough", "hook_stop")
    assert result.label == "stop"
    assert result.rank == 5
    assert result.is_final


def test_stop_with_a_stop_reason() -> None:
    assert HookResult.stop("over budget", stop_reason="token_limit").stop_reason == "token_limit"


def test_with_context_appends_and_keeps_the_decision() -> None:
    base = HookResult.block("no")
    result = base.with_context("one").with_context("two")
    assert result.kind == "block"
    assert result.reason == "no"
    assert result.contexts == ("one", "two")
    assert base.contexts == ()


def test_with_context_on_proceed_leaves_the_singleton_alone() -> None:
    result = HookResult.proceed().with_context("note")
    assert result.label == "context"
    assert PROCEED.contexts == ()


def test_with_changes_merges_later_keys_winning() -> None:
    base = HookResult.modify(args={"a": 1}, metadata={"m": 1})
    result = base.with_changes(args={"b": 2})
    assert dict(result.changes) == {"args": {"b": 2}, "metadata": {"m": 1}}
    assert dict(base.changes) == {"args": {"a": 1}, "metadata": {"m": 1}}


def test_with_changes_keeps_a_stronger_decision() -> None:
    result = HookResult.retry("again").with_changes(response="fixed")
    assert result.label == "retry"
    assert result.rank == 2
    assert dict(result.changes) == {"response": "fixed"}


def test_modify_with_context_reads_as_modify() -> None:
    result = HookResult.modify(args={}).with_context("note")
    assert result.label == "modify"
    assert result.rank == 1


@pytest.mark.parametrize(
    ("result", "rank"),
    [
        (HookResult.proceed(), 0),
        (HookResult.context("c"), 0),
        (HookResult.modify(args={}), 1),
        (HookResult.retry("r"), 2),
        (HookResult.continue_("c"), 2),
        (HookResult.ask("q"), 3),
        (HookResult.block("b"), 4),
        (HookResult.stop("s"), 5),
    ],
    ids=lambda value: value.label if isinstance(value, HookResult) else str(value),
)
def test_rank_follows_the_precedence(result: HookResult, rank: int) -> None:
    assert result.rank == rank


def test_only_block_and_stop_are_final() -> None:
    finals = {kind for kind in RANK if HookResult(kind=kind).is_final}
    assert finals == {"block", "stop"}


def test_results_are_frozen_and_slotted() -> None:
    result = HookResult.block("no")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.kind = "proceed"  # type: ignore[misc]  # frozen on purpose
    assert not hasattr(result, "__dict__")

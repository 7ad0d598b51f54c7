"""Hook points as data: the 23 points, their events, writable fields and legal decisions."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from hookagent.hooks import _points as points
from hookagent.hooks._points import ALL_POINTS, POINTS_BY_NAME, HookPoint
from hookagent.hooks._result import RANK

NAMES = (
    "execution_start",
    "user_prompt",
    "before_step",
    "before_inference",
    "after_inference",
    "before_tool",
    "after_tool",
    "tool_refused",
    "after_step",
    "should_continue",
    "stop",
    "execution_end",
    "on_error",
    "subagent_start",
    "subagent_stop",
    "session_start",
    "session_end",
    "before_compact",
    "after_compact",
    "permission_request",
    "notification",
    "task_created",
    "task_completed",
    "elicitation",
    "elicitation_result",
)

# DESIGN §2: where each decision besides proceed/modify/context is legal.
BLOCK_AT = {"before_tool", "user_prompt", "stop", "subagent_stop", "before_compact"}
BLOCK_AT |= {"permission_request"}  # refusing on the human's behalf, as Claude Code's hooks can
BLOCK_AT |= {"task_created", "task_completed"}  # refusing a planning tool's update
BLOCK_AT |= {"elicitation", "elicitation_result"}  # declining an MCP server's request
ASK_AT = {name for name in NAMES if name.startswith("before_")} | {"stop", "elicitation"}
RETRY_AT = {"after_inference", "after_tool", "on_error"}
CONTINUE_AT = {"should_continue", "on_error"}
SILENT = {"execution_end", "on_error", "notification", "permission_request"}
"""Points whose `context` never reaches the model (the brief's minimum; more may exist)."""


def point_params() -> list[Any]:
    return [pytest.param(point, id=point.name) for point in ALL_POINTS]


def test_all_points_exist_in_loop_order() -> None:
    assert tuple(point.name for point in ALL_POINTS) == NAMES
    assert len({point.name for point in ALL_POINTS}) == 25


def test_points_by_name_indexes_all_points() -> None:
    assert list(POINTS_BY_NAME) == list(NAMES)
    assert all(POINTS_BY_NAME[point.name] is point for point in ALL_POINTS)


def test_each_point_has_a_module_constant() -> None:
    for point in ALL_POINTS:
        assert getattr(points, point.name.upper()) is point


@pytest.mark.parametrize("point", point_params())
def test_each_point_declares_a_dataclass_event_with_a_run(point: HookPoint[Any]) -> None:
    assert dataclasses.is_dataclass(point.event_type)
    assert "run" in {f.name for f in dataclasses.fields(point.event_type)}


@pytest.mark.parametrize("point", point_params())
def test_writable_fields_are_fields_of_the_event(point: HookPoint[Any]) -> None:
    fields = {f.name for f in dataclasses.fields(point.event_type)}
    assert "metadata" in point.writable, "every point may patch run metadata"
    assert "metadata" not in fields, "metadata is a pseudo-field, merged into the run's metadata"
    assert point.writable - {"metadata"} <= fields
    assert "run" not in point.writable


@pytest.mark.parametrize("point", point_params())
def test_the_subject_is_a_string_field_of_the_event(point: HookPoint[Any]) -> None:
    if point.subject is None:
        return
    types = {f.name: f.type for f in dataclasses.fields(point.event_type)}
    assert types[point.subject] in ("str", str, "str | None")


def test_tool_points_match_on_the_tool_name() -> None:
    assert points.BEFORE_TOOL.subject == points.AFTER_TOOL.subject == "tool_name"
    assert points.BEFORE_STEP.subject is None
    assert points.STOP.subject is None


@pytest.mark.parametrize("point", point_params())
def test_decisions_are_known_kinds_and_stop_is_legal_everywhere(point: HookPoint[Any]) -> None:
    assert point.decisions <= set(RANK)
    assert "stop" in point.decisions
    assert point.accepts("proceed")
    assert point.accepts("stop")


@pytest.mark.parametrize("point", point_params())
def test_block_is_legal_only_where_design_says(point: HookPoint[Any]) -> None:
    assert point.accepts("block") == (point.name in BLOCK_AT)


@pytest.mark.parametrize("point", point_params())
def test_ask_is_legal_only_where_design_says(point: HookPoint[Any]) -> None:
    assert point.accepts("ask") == (point.name in ASK_AT)


@pytest.mark.parametrize("point", point_params())
def test_retry_is_legal_only_where_design_says(point: HookPoint[Any]) -> None:
    assert point.accepts("retry") == (point.name in RETRY_AT)


@pytest.mark.parametrize("point", point_params())
def test_continue_is_legal_only_where_design_says(point: HookPoint[Any]) -> None:
    assert point.accepts("continue") == (point.name in CONTINUE_AT)


@pytest.mark.parametrize("name", sorted(SILENT))
def test_some_points_do_not_feed_the_model(name: str) -> None:
    assert not POINTS_BY_NAME[name].feeds_model


@pytest.mark.parametrize(
    "name", ["user_prompt", "before_inference", "before_tool", "after_tool", "stop"]
)
def test_points_around_model_input_feed_it(name: str) -> None:
    assert POINTS_BY_NAME[name].feeds_model


def test_writable_fields_of_the_main_points() -> None:
    writable = {point.name: point.writable - {"metadata"} for point in ALL_POINTS}
    assert writable["before_tool"] == {"args"}
    assert writable["after_tool"] == {"result"}
    assert writable["before_inference"] >= {"request"}
    assert writable["after_inference"] == {"response"}
    assert writable["user_prompt"] == {"prompt"}
    assert writable["stop"] == {"output"}


def test_points_are_frozen_and_named_in_their_repr() -> None:
    point = points.BEFORE_TOOL
    assert repr(point) == "HookPoint(before_tool)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.name = "other"  # type: ignore[misc]  # frozen on purpose

"""TaskPlanning: TodoWrite's checks and output, the list as a recorded decision, and a
reminder that does not repeat every step (REFERENCE lesson §8.7)."""

from __future__ import annotations

from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.planning import (
    NUDGE,
    TASKS,
    TaskPlanning,
    render_todos,
    summarize_todos,
)
from hookagent.testing import ScriptedModel, reply, tool_call


@h.tool
def noop() -> str:
    """Do nothing."""
    return "ok"


def todo(content: str, status: str = "pending", active: str | None = None) -> dict[str, str]:
    return {
        "content": content,
        "status": status,
        "activeForm": f"{content}ing" if active is None else active,
    }


PLAN = [
    todo("Read the code", "completed", "Reading the code"),
    todo("Fix the bug", "in_progress", "Fixing the bug"),
    todo("Run the tests", "pending", "Running the tests"),
]


async def run(*turns: Any, cap: TaskPlanning | None = None, **options: Any) -> h.RunResult:
    model = ScriptedModel(list(turns))
    agent = h.AgentBuilder().model(model).tools(noop).with_(cap or TaskPlanning()).build()
    result = await agent.run("work", **options)
    model.assert_consumed()
    return result


def reminder_steps(result: h.RunResult) -> list[int]:
    return [d.step for d in result.decisions.at(h.BEFORE_STEP) if d.contexts]


# -- the tool ---------------------------------------------------------------------------


async def test_todo_write_renders_the_list_and_returns_claude_codes_shape() -> None:
    result = await run(tool_call("TodoWrite", todos=PLAN), reply("done"))
    out = result.tool_calls[0].result
    assert not out.is_error
    assert out.content == (
        "● Read the code\n◐ Fixing the bug\n○ Run the tests\n\n"
        "Tasks: 1/3 completed, 1 in progress, 1 pending"
    )
    assert out.data == {"oldTodos": [], "newTodos": PLAN}


async def test_the_list_is_stored_by_a_recorded_after_tool_decision() -> None:
    result = await run(tool_call("TodoWrite", todos=PLAN), reply("done"))
    assert result.state.metadata["tasks"] == PLAN
    (decision,) = result.decisions.at(h.AFTER_TOOL)
    assert decision.outcome == "modify"
    assert decision.hook == "planning:record_tasks"
    assert "tasks" in decision.votes[0].changes["metadata"]


async def test_a_second_write_replaces_the_list_and_reports_the_old_one() -> None:
    second = [todo("Ship it", "in_progress", "Shipping it")]
    result = await run(
        tool_call("TodoWrite", todos=PLAN), tool_call("TodoWrite", todos=second), reply("done")
    )
    assert result.tool_calls[1].result.data == {"oldTodos": PLAN, "newTodos": second}
    assert TASKS.get(h.RunView(result.state)) == second


async def test_an_empty_list_clears_the_tasks() -> None:
    result = await run(
        tool_call("TodoWrite", todos=PLAN), tool_call("TodoWrite", todos=[]), reply("ok")
    )
    out = result.tool_calls[1].result
    assert out.content == "(no tasks)\n\nTasks: 0/0 completed, 0 in progress, 0 pending"
    assert result.state.metadata["tasks"] == []


@pytest.mark.parametrize(
    ("todos", "expected"),
    [
        ([{"content": "x", "status": "pending"}], "todos.0.activeForm: Field required"),
        ([todo("  ")], "todos.0.content: Value error, must not be empty"),
        ([todo("x", active="")], "todos.0.activeForm: Value error, must not be empty"),
        ([todo("x", "done")], "todos.0.status: Input should be 'pending', 'in_progress'"),
        ("not a list", "todos: Input should be a valid list"),
        (
            [todo("a", "in_progress"), todo("b", "in_progress")],
            "2 items in_progress (a, b); at most one may be",
        ),
        ([todo(str(i)) for i in range(4)], "4 items, more than the 3 allowed"),
    ],
)
async def test_invalid_lists_are_error_results_and_change_nothing(
    todos: object, expected: str
) -> None:
    result = await run(
        tool_call("TodoWrite", todos=todos),
        reply("ok"),
        cap=TaskPlanning(max_items=3),
        metadata=TASKS(PLAN),
    )
    out = result.tool_calls[0].result
    assert out.is_error
    assert expected in out.content
    assert result.status == "completed"
    assert result.state.metadata["tasks"] == PLAN
    assert result.decisions.at(h.AFTER_TOOL) == []


async def test_missing_todos_argument_is_an_error_result() -> None:
    result = await run(tool_call("TodoWrite"), reply("ok"))
    assert result.tool_calls[0].result.is_error
    assert "todos: Field required" in result.tool_calls[0].result.content


def test_schema_uses_claude_codes_field_names() -> None:
    (tool,) = TaskPlanning().tools()
    item = tool.parameters["$defs"]["_Item"]
    assert set(item["required"]) == {"content", "status", "activeForm"}


@pytest.mark.parametrize("setting", ["max_items", "reminder_every"])
def test_limits_below_one_are_config_errors(setting: str) -> None:
    options: dict[str, Any] = {setting: 0}
    with pytest.raises(h.ConfigError, match=setting):
        TaskPlanning(**options)


def test_render_and_summary() -> None:
    assert render_todos(PLAN) == "● Read the code\n◐ Fixing the bug\n○ Run the tests"
    assert summarize_todos(PLAN) == "Tasks: 1/3 completed, 1 in progress, 1 pending"
    assert render_todos([]) == "(no tasks)"


# -- the reminder -----------------------------------------------------------------------


async def test_reminder_has_a_cooldown_instead_of_repeating_every_step() -> None:
    turns = [tool_call("TodoWrite", todos=PLAN), *[tool_call("noop") for _ in range(8)]]
    result = await run(*turns, reply("done"), cap=TaskPlanning(reminder_every=3))
    # step 1: the one-off nudge; then every 3 steps after the write (1) or the last reminder
    assert reminder_steps(result) == [1, 4, 7, 10]
    recall = result.decisions.at(h.BEFORE_STEP)[1]
    assert [vote.hook for vote in recall.votes] == ["planning:remind"]
    text = recall.contexts[0]
    assert "◐ Fixing the bug\n○ Run the tests" in text
    assert "Read the code" not in text  # only open items are recalled
    assert text.endswith("Tasks: 1/3 completed, 1 in progress, 1 pending")
    reminders = [m.content for m in result.state.messages if "open items" in m.content]
    assert len(reminders) == 3 and all("<system-reminder>" in r for r in reminders)


async def test_writing_the_list_resets_the_cooldown() -> None:
    turns = [
        tool_call("TodoWrite", todos=PLAN),
        tool_call("noop"),
        tool_call("TodoWrite", todos=PLAN),
        *[tool_call("noop") for _ in range(4)],
    ]
    result = await run(*turns, reply("done"), cap=TaskPlanning(reminder_every=3, nudge=False))
    assert reminder_steps(result) == [6]


async def test_no_reminder_once_everything_is_completed() -> None:
    finished = [todo("Fix the bug", "completed", "Fixing the bug")]
    turns = [tool_call("TodoWrite", todos=finished), *[tool_call("noop") for _ in range(5)]]
    result = await run(*turns, reply("done"), cap=TaskPlanning(reminder_every=2, nudge=False))
    assert reminder_steps(result) == []


async def test_the_nudge_comes_once_at_the_first_step_of_a_run_without_a_list() -> None:
    result = await run(tool_call("noop"), tool_call("noop"), reply("done"))
    (nudge,) = [d for d in result.decisions.at(h.BEFORE_STEP) if d.contexts]
    assert (nudge.step, nudge.contexts) == (1, (NUDGE,))


async def test_no_nudge_when_switched_off() -> None:
    result = await run(tool_call("noop"), reply("done"), cap=TaskPlanning(nudge=False))
    assert reminder_steps(result) == []


async def test_open_tasks_carried_into_a_run_are_recalled_at_its_first_step() -> None:
    turns = [tool_call("noop") for _ in range(3)]
    result = await run(
        *turns, reply("done"), cap=TaskPlanning(reminder_every=10), metadata=TASKS(PLAN)
    )
    assert reminder_steps(result) == [1]
    assert "◐ Fixing the bug" in result.decisions.at(h.BEFORE_STEP)[0].contexts[0]

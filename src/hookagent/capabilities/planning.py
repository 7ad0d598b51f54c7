"""`TaskPlanning`: Claude Code's `TodoWrite`, the list kept in run metadata, and a reminder.

The tool only checks and renders: it never touches the run. Its result carries Claude Code's
response shape `{oldTodos, newTodos}`, and the capability's own after_tool transform stores
`newTodos` under `metadata["tasks"]`, so every update of the list is a recorded decision.
Before it answers, the tool fires `task_created` for each item new to the list and
`task_completed` for each newly completed one: a block there refuses the whole update (the
list is unchanged and the model reads why), and a stop ends the run after the call.

The reminder has a cooldown (REFERENCE lesson §8.7: the old nag repeated every step once past
its threshold). It fires before a step only while items are open and only when
`reminder_every` steps have passed since the list was last written or last recalled. Both
moments are read back from the run's decision records, so the cooldown needs no state of
its own and survives a resumed run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel, Field

from hookagent._errors import ConfigError
from hookagent.capabilities._arg_types import NonBlank
from hookagent.hooks._decorators import HookProvider, hook
from hookagent.hooks._events import StepEvent, TaskEvent, ToolResultEvent
from hookagent.hooks._points import AFTER_TOOL, BEFORE_STEP, TASK_COMPLETED, TASK_CREATED
from hookagent.hooks._result import HookResult
from hookagent.kernel._metadata import MetadataKey
from hookagent.kernel._view import RunView
from hookagent.tools._base import Tool, ToolContext, ToolResult
from hookagent.tools._model_tool import ModelTool

__all__ = [
    "TASKS",
    "TaskPlanning",
    "TodoWrite",
    "current_todos",
    "render_todos",
    "summarize_todos",
]

Todo = dict[str, str]
"""One item as Claude Code shapes it: `{content, status, activeForm}`."""

TASKS: Final = MetadataKey[list[Todo]]("tasks")
"""Where the current list lives in run metadata (a reserved key of `Metadata`)."""

NUDGE: Final = (
    "For a task with several steps, plan it with the TodoWrite tool: list the steps, keep "
    "exactly one in_progress, and mark each completed as soon as it is done."
)
_MARKS: Final = {"pending": "○", "in_progress": "◐", "completed": "●"}


class _Item(BaseModel):
    content: NonBlank = Field(description="What needs doing, in the imperative: 'Run the tests'.")
    status: Literal["pending", "in_progress", "completed"]
    active_form: NonBlank = Field(
        alias="activeForm", description="The same in the continuous form: 'Running the tests'."
    )


class _TodoArgs(BaseModel):
    todos: list[_Item] = Field(description="The whole updated list; it replaces the old one.")


class TodoWrite(ModelTool[_TodoArgs]):
    """Replace the task list. Bad input is an error result; the list is then unchanged."""

    name = "TodoWrite"
    description = (
        "Create or update the task list for the current work. Send the whole list each time: "
        "it replaces the previous one. Each item has content (imperative), activeForm "
        "(continuous form, shown while it runs) and status: pending, in_progress or "
        "completed. Keep exactly one item in_progress while working and mark items "
        "completed as soon as they are done. Use it for tasks with several steps."
    )
    args_model = _TodoArgs

    def __init__(self, max_items: int = 20) -> None:
        self.max_items = max_items

    async def run(self, args: _TodoArgs, ctx: ToolContext) -> ToolResult:
        new = [item.model_dump(by_alias=True) for item in args.todos]
        problem = self._problem(new)
        if problem is not None:
            return ToolResult.error(f"TodoWrite: {problem}; the task list was not changed.")
        old = current_todos(ctx.run)
        refusal = await _announce(ctx, old, new)
        if refusal is not None:
            return refusal
        content = f"{render_todos(new)}\n\n{summarize_todos(new)}"
        return ToolResult(content=content, data={"oldTodos": old, "newTodos": new})

    def _problem(self, todos: Sequence[Todo]) -> str | None:
        if len(todos) > self.max_items:
            return f"{len(todos)} items, more than the {self.max_items} allowed"
        running = [t["content"] for t in todos if t["status"] == "in_progress"]
        if len(running) > 1:
            return f"{len(running)} items in_progress ({', '.join(running)}); at most one may be"
        return None


class TaskPlanning(HookProvider):
    """`TodoWrite`, the list in `metadata["tasks"]`, and a reminder with a cooldown.

    Args:
        max_items: the longest list `TodoWrite` accepts.
        reminder_every: steps that must pass since the list was last written or recalled
            before an open list is recalled to the model again.
        nudge: at the first step of a run with no list, suggest `TodoWrite` once.
    """

    name = "planning"

    def __init__(self, max_items: int = 20, reminder_every: int = 10, *, nudge: bool = True):
        for key, value in (("max_items", max_items), ("reminder_every", reminder_every)):
            if value < 1:
                raise ConfigError(f"must be at least 1, not {value!r}", key=key, value=value)
        self.reminder_every = reminder_every
        self.nudge = nudge
        self._tool = TodoWrite(max_items)

    def tools(self) -> tuple[Tool, ...]:
        return (self._tool,)

    @hook(AFTER_TOOL, match="TodoWrite", kind="transform")
    def record_tasks(self, event: ToolResultEvent) -> HookResult | None:
        """Store the list a successful `TodoWrite` returned."""
        new = event.result.returned("newTodos")
        return TASKS.set(list(new)) if isinstance(new, list) else None

    @hook(AFTER_TOOL, match="TodoWrite", kind="guard")
    def stop_on_request(self, event: ToolResultEvent) -> HookResult | None:
        """End the run when a task_created/task_completed hook stopped the update."""
        data = event.result.data
        if event.result.is_error and isinstance(data, Mapping) and _STOPPED in data:
            return HookResult.stop(str(data[_STOPPED]))
        return None

    @hook(BEFORE_STEP, kind="transform")
    def remind(self, event: StepEvent) -> HookResult | None:
        """Recall the open items, at most once every `reminder_every` steps."""
        todos = current_todos(event.run)
        open_items = [t for t in todos if t.get("status") != "completed"]
        if not open_items:
            first = event.step == 1 and not todos
            return HookResult.context(NUDGE) if self.nudge and first else None
        if self._recently_touched(event.run, event.step):
            return None
        return HookResult.context(
            "The task list still has open items. If your progress changed, update it with "
            "TodoWrite (mark finished items completed, keep one in_progress):\n"
            f"{render_todos(open_items)}\n{summarize_todos(todos)}"
        )

    def _recently_touched(self, run: RunView, step: int) -> bool:
        """Whether the list was written or recalled within the last `reminder_every` steps.

        Reads the decision records backwards and stops at the window's edge, so the cost is
        bounded by the window, not by the length of the run.
        """
        written, recalled = f"{self.name}:record_tasks", f"{self.name}:remind"
        decisions = run.decisions
        for index in range(len(decisions) - 1, -1, -1):
            decision = decisions[index]
            if step - decision.step >= self.reminder_every:
                return False
            for vote in decision.votes:
                if (vote.hook == written and vote.changes) or (
                    vote.hook == recalled and vote.contexts
                ):
                    return True
        return False


_STOPPED: Final = "stopped"
"""In a refused TodoWrite result's data: why a task hook stopped the run."""


async def _announce(
    ctx: ToolContext, old: Sequence[Todo], new: Sequence[Todo]
) -> ToolResult | None:
    """Fire task_created for each item not in `old`, task_completed for each item completed
    in `new` but not in `old`, in list order; the refusal of the first that blocks or stops.
    An item's id is its 1-based place in `new`; `content` is its subject."""
    before = {item["content"]: item["status"] for item in old}
    for index, item in enumerate(new, 1):
        subject = item["content"]
        points = [TASK_CREATED] if subject not in before else []
        if item["status"] == "completed" and before.get(subject) != "completed":
            points.append(TASK_COMPLETED)
        for point in points:
            event = TaskEvent(
                run=ctx.run,
                step=ctx.run.step_count + 1,
                call_id=ctx.call.id,
                task_id=str(index),
                subject=subject,
                status=item["status"],
            )
            decision, _ = await ctx.run.fire(point, event)
            if decision.outcome in ("block", "stop"):
                what = "adding" if point is TASK_CREATED else "completing"
                message = (
                    f"TodoWrite: {what} {subject!r} was refused by {decision.hook}: "
                    f"{decision.reason}; the task list was not changed."
                )
                why = decision.reason or f"stopped by {decision.hook}"
                stopped = {_STOPPED: why} if decision.outcome == "stop" else None
                return ToolResult.error(message, data=stopped)
    return None


def current_todos(run: RunView) -> list[Todo]:
    """The stored list, copied; anything that is not a list of items reads as empty."""
    stored: Any = TASKS.get(run)
    if not isinstance(stored, list):
        return []
    return [dict(item) for item in stored if isinstance(item, Mapping)]


def render_todos(todos: Sequence[Mapping[str, str]]) -> str:
    """`○ pending`, `◐ activeForm` for the item in progress, `● completed`, one a line."""
    if not todos:
        return "(no tasks)"
    lines = []
    for item in todos:
        status = item.get("status", "pending")
        text = item.get("activeForm") if status == "in_progress" else item.get("content")
        lines.append(f"{_MARKS.get(status, '○')} {text or item.get('content', '')}")
    return "\n".join(lines)


def summarize_todos(todos: Sequence[Mapping[str, str]]) -> str:
    """`Tasks: c/t completed, p in progress, q pending`."""
    counts = Counter(item.get("status") for item in todos)
    return (
        f"Tasks: {counts['completed']}/{len(todos)} completed, "
        f"{counts['in_progress']} in progress, {counts['pending']} pending"
    )

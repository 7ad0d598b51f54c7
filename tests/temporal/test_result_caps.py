"""Long tool results on Temporal: the tool's own, and one an after_tool hook puts in place.

Whether the hook runs in the workflow (a sync hook) or in a fold activity (an async one, as
command and http hooks are), the model reads the preview and the path, as for the tool's own
result; the whole text is saved in the run's folder on the worker, and the workflow history
never holds it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client, WorkflowHistory

import hookagent as h
from hookagent.temporal import TemporalRuns, agent_worker
from hookagent.testing import ScriptedModel, reply, tool_call
from temporal.test_runs import queue, replays

pytestmark = pytest.mark.temporal

BIG = "".join(f"line {n:06d}\n" for n in range(16_667))[:200_000]


@h.tool
def probe(size: int) -> str:
    """Return `size` characters of the big text."""
    return BIG[:size]


def replace(event: h.ToolResultEvent) -> h.HookResult:
    return h.HookResult.modify(result=h.ToolResult(content=BIG))


async def replace_io(event: h.ToolResultEvent) -> h.HookResult:
    await asyncio.sleep(0)
    return replace(event)


def replace_short(event: h.ToolResultEvent) -> h.HookResult:
    return h.HookResult.modify(result=h.ToolResult(content="x" * 100))


def build(model: ScriptedModel, folder: Path, hook: Callable[..., Any] | None) -> h.Agent:
    builder = h.AgentBuilder().model(model).tools(probe).outputs(folder=folder)
    if hook is not None:
        builder.on(h.AFTER_TOOL, hook, name="replace")
    return builder.build()


async def ran(client: Client, agent: h.Agent) -> tuple[h.RunResult[Any], WorkflowHistory]:
    """The run of `agent` on a worker, and its history (which replays)."""
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go")
        result = await runs.result(run_id)
        history = await client.get_workflow_handle(run_id).fetch_history()
        await replays(client, run_id, history)
    return result, history


def folds(history: WorkflowHistory) -> int:
    return sum(
        e.activity_task_scheduled_event_attributes.activity_type.name == "hookagent.fold"
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    )


@pytest.mark.parametrize(
    ("size", "hook", "activities"),
    [(10, replace, 1), (10, replace_io, 1), (len(BIG), None, 0)],
    ids=["hook in the workflow", "hook in an activity", "the tool's own"],
)
async def test_a_long_result_reaches_the_model_cut_and_is_saved_whole(
    client: Client, tmp_path: Path, size: int, hook: Callable[..., Any] | None, activities: int
) -> None:
    model = ScriptedModel([tool_call("probe", size=size), reply("done")])
    result, history = await ran(client, build(model, tmp_path, hook))
    assert result.status == "completed", result.state.error
    [call] = result.tool_calls
    shown = model.calls[1].last_message
    assert shown == call.result.content
    assert len(shown) <= 2_000 + 400
    assert shown.startswith(f"<persisted-output>\nOutput too large ({len(BIG):,} characters).")
    assert BIG[:2_000] in shown
    match = re.search(r"Full output saved to: (\S+)", shown)
    assert match is not None, shown[:300]
    saved = Path(match.group(1))
    assert saved.parent == tmp_path / "runs" / result.run_id
    assert saved.name.startswith(f"probe-{call.call_id}-")
    assert saved.read_text() == BIG
    assert len(history.to_json()) < len(BIG) / 4  # the whole text is not in the history
    assert folds(history) == activities  # a fold in the workflow folds again to be cut


async def test_a_short_result_a_hook_puts_in_place_stays_whole_and_in_the_workflow(
    client: Client, tmp_path: Path
) -> None:
    model = ScriptedModel([tool_call("probe", size=10), reply("done")])
    result, history = await ran(client, build(model, tmp_path, replace_short))
    assert model.calls[1].last_message == result.tool_calls[0].result.content == "x" * 100
    assert folds(history) == 0
    assert not (tmp_path / "runs").exists()

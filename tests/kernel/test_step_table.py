"""Step records kept as columns read back as the records the run made, whoever reads them."""

from __future__ import annotations

import gc
from types import MappingProxyType
from typing import Any

import pytest

import hookagent as h
from hookagent.kernel._records import StepRecord, ToolExecution
from hookagent.kernel._step_table import StepTable
from hookagent.testing import reply, tool_call, turn

from .helpers import builder


@h.tool
def lookup(key: str) -> dict[str, Any]:
    """Structured data."""
    return {"key": key, "found": True}


def busy_builder() -> h.AgentBuilder:
    """Rewritten and watched arguments, blocked and failing calls, structured results."""
    b, _ = builder(
        turn(
            "",
            {"name": "echo", "args": {"text": "rewrite me"}},
            {"name": "echo", "args": {"text": "rm -rf"}},
            {"name": "nope", "args": {}},
        ),
        turn("", {"name": "lookup", "args": {"key": "k"}}, {"name": "echo", "args": {"text": "x"}}),
        reply("done"),
    )
    b.tools(lookup)

    def guard(event: h.ToolCallEvent) -> h.HookResult | None:
        if event.args.get("text") == "rm -rf":
            return h.HookResult.block("destructive")
        if event.args.get("text") == "rewrite me":
            return h.HookResult.modify(args={"text": "rewritten"})
        return None

    b.on(h.BEFORE_TOOL, guard, kind="guard")
    b.on(h.AFTER_TOOL, lambda e: h.HookResult.context("noted"), kind="observer")
    return b


async def test_records_read_back_equal_what_the_stream_and_hooks_were_given() -> None:
    ended: list[StepRecord] = []
    b = busy_builder().on(h.AFTER_STEP, lambda e: ended.append(e.record), kind="observer")
    finished: list[StepRecord] = []
    ran: list[ToolExecution] = []
    result = None
    async for event in b.build().stream("go"):
        if isinstance(event, h.StepFinished):
            finished.append(event.record)
        elif isinstance(event, h.ToolFinished):
            ran.append(event.execution)
        elif isinstance(event, h.RunFinished):
            result = event.result
    assert result is not None
    steps = result.state.steps
    assert list(steps) == finished == ended
    assert result.tool_calls == ran
    first, blocked, unknown = steps[0].executions
    assert dict(first.args) == {"text": "rewritten"} and first.result.content.startswith("rewri")
    assert blocked.blocked and blocked.result.is_error and not unknown.blocked
    assert steps[0].kind == "error" and steps[0].errors == (
        blocked.result.content,
        unknown.result.content,
    )
    structured = steps[1].executions[0]
    assert structured.result.data == {"key": "k", "found": True}
    assert type(steps[1].executions[1].args) is MappingProxyType  # what hooks were shown
    assert steps[1].executions[1].result.data == "x"
    assert [s.kind for s in steps] == ["error", "tool_execution", "final_response"]


async def test_a_loaded_state_reads_its_steps_from_its_own_conversation() -> None:
    state = (await busy_builder().build().run("go")).state
    again = h.RunState.from_json(state.to_json())
    assert again == state and again.to_json() == state.to_json()
    assert again.steps[0].response is again.messages[1]  # not a second copy of the reply
    assert again.steps[-1] == state.steps[-1]


def test_records_built_by_hand_are_kept_as_given() -> None:
    records = [
        StepRecord(index=1, kind="error", errors=("the model call failed",)),
        StepRecord(index=7, kind="final_response", response=h.AssistantMessage(content="?")),
    ]
    steps: Any = list(records)  # typed as a StepTable; a list of records still works
    state = h.RunState(messages=[h.UserMessage(content="hi")], steps=steps)
    assert isinstance(state.steps, StepTable)
    assert state.steps == records and state.steps[1].index == 7
    assert state.steps.last_call_count() == 0
    again = h.RunState.from_json(state.to_json())
    assert again == state and again.to_json() == state.to_json()


async def test_a_step_cut_short_owns_none_of_the_calls_it_made() -> None:
    b, _ = builder(
        turn("", {"name": "echo", "args": {"text": "a"}}, {"name": "echo", "args": {"text": "b"}}),
        tool_call("echo", text="c"),
        reply("done"),
    )
    b.on(h.AFTER_TOOL, lambda e: h.HookResult.block("no") if e.step == 1 else None)
    b.error_policy(h.ErrorPolicy(default="ignore"))
    b.on(h.SHOULD_CONTINUE, lambda e: h.HookResult.continue_("again") if e.step == 1 else None)
    result = await b.build().run("go")
    cut, later, last = result.steps
    assert (cut.kind, cut.executions, cut.response) == ("error", (), None)
    [call] = later.executions
    assert call.result.content == "c" and call.call_id == later.response.tool_calls[0].id  # type: ignore[union-attr]
    assert last.kind == "final_response"
    assert [c.result.content for c in result.tool_calls] == ["c"]


async def test_result_steps_compare_and_slice_like_the_tuple_they_were() -> None:
    result = await busy_builder().build().run("go")
    assert result.steps == tuple(result.state.steps)
    assert result.steps[:2] == tuple(result.state.steps)[:2]
    assert isinstance(result.steps[1:], tuple)
    assert result.steps[-1].kind == "final_response" and len(result.steps) == 3


async def test_holding_a_result_keeps_no_record_objects() -> None:
    def live() -> int:
        gc.collect()
        return sum(isinstance(o, StepRecord | ToolExecution) for o in gc.get_objects())

    before = live()
    b, _ = builder(*[tool_call("echo", text=str(i)) for i in range(30)], reply("done"))
    result = await b.limits(max_steps=40).build().run("go")
    assert len(result.steps) == 31
    assert live() == before


def test_the_table_reads_as_a_sequence_and_refuses_a_rewritten_conversation() -> None:
    reply_message = h.AssistantMessage(content="hello")
    state = h.RunState(messages=[h.UserMessage(content="hi"), reply_message])
    state.steps.append_step(1, 1, h.Usage(requests=1), 1.5, 0.25, 0, None)
    [record] = state.steps
    assert state.steps[-1] == state.steps[0] == record and state.steps[:5] == [record]
    assert (record.kind, record.response, record.started_at) == (
        "final_response",
        reply_message,
        1.5,
    )
    with pytest.raises(IndexError):
        state.steps[1]
    state.messages[1] = h.UserMessage(content="edited")
    with pytest.raises(RuntimeError, match="appended"):
        state.steps[0]

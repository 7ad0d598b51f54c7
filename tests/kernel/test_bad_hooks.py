"""Hooks that raise, hang, return garbage or an illegal decision, inside a real run."""

from __future__ import annotations

import asyncio
import json

import hookagent as h
from hookagent.testing import reply, tool_call, turn

from .helpers import builder


async def test_an_illegal_decision_fails_the_run_naming_hook_and_point() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))

    def retry_before_tool(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.retry("nope")

    result = await b.on(h.BEFORE_TOOL, retry_before_tool, name="bad_retry").build().run("go")
    assert (result.status, result.stop_reason) == ("failed", "error")
    assert "user:bad_retry at before_tool" in (result.error or "")
    assert "`retry` is not a legal decision here" in (result.error or "")
    # the recorded state is intact and still serialisable
    assert [m.role for m in result.state.messages] == ["user", "assistant", "tool"]
    assert h.RunState.from_json(result.state.to_json()).error == result.error


async def test_a_hook_returning_garbage_fails_the_run_clearly() -> None:
    b, _ = builder(reply("done"))
    result = await b.on(h.AFTER_STEP, lambda e: "yes", name="chatty").build().run("go")
    assert result.status == "failed"
    assert "user:chatty at after_step" in (result.error or "")
    assert "expected a HookResult or None" in (result.error or "")


async def test_a_raising_guard_blocks_the_call_and_names_itself() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("ok"))

    def broken(event: h.ToolCallEvent) -> None:
        raise KeyError("config")

    result = await b.on(h.BEFORE_TOOL, broken, name="broken_guard").build().run("go")
    [call] = result.tool_calls
    assert call.blocked
    assert "user:broken_guard at before_tool failed: KeyError" in call.result.content
    assert result.status == "completed"


async def test_a_raising_observer_fails_open() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("ok"))

    def broken(event: h.ToolCallEvent) -> None:
        raise RuntimeError("log server down")

    result = await b.on(h.BEFORE_TOOL, broken, kind="observer").build().run("go")
    assert result.tool_calls[0].result.content == "hi"
    [vote] = result.decisions.at(h.BEFORE_TOOL)[0].votes
    assert vote.error == "RuntimeError: log server down"


async def test_a_hanging_guard_times_out_and_blocks() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("ok"))

    async def hang(event: h.ToolCallEvent) -> None:
        await asyncio.sleep(30)

    result = await b.on(h.BEFORE_TOOL, hang, name="hang", timeout=0.05).build().run("go")
    [call] = result.tool_calls
    assert call.blocked
    assert "user:hang at before_tool timed out after 0.05 s" in call.result.content
    assert result.status == "completed"


async def test_a_hanging_guard_where_block_is_illegal_stops_the_run() -> None:
    b, _ = builder(reply("unreached"))

    async def hang(event: h.StepEvent) -> None:
        await asyncio.sleep(30)

    result = await b.on(h.BEFORE_STEP, hang, name="hang", timeout=0.05).build().run("go")
    assert (result.status, result.stop_reason) == ("stopped", "guard")
    assert "timed out" in (result.stop_message or "")


async def test_a_run_result_serialises_to_json_for_the_cli() -> None:
    b, _ = builder(tool_call("echo", text="hi"), reply("done"))
    b.on(h.BEFORE_TOOL, lambda e: h.HookResult.block("no"))
    data = json.loads(json.dumps((await b.build().run("go")).to_dict()))
    assert data["status"] == "completed"
    assert data["tool_calls"][0]["is_error"] is True
    assert data["decisions"][0]["decision"] == "block"
    assert data["decisions"][0]["hook"].startswith("user:")


async def test_a_failing_stop_guard_ends_the_run_instead_of_forcing_more_steps() -> None:
    b, model = builder(reply("done"), reply("unreached"))

    def broken(event: h.StopEvent) -> None:
        raise RuntimeError("checker crashed")

    result = await b.on(h.STOP, broken, name="checker").build().run("go")
    assert (result.status, result.stop_reason) == ("stopped", "guard")
    assert "user:checker at stop failed: RuntimeError" in (result.stop_message or "")
    assert model.remaining == 1


async def test_a_hook_error_mid_batch_leaves_every_call_with_a_result() -> None:
    b, _ = builder(
        turn("", {"name": "echo", "args": {"text": "a"}}, {"name": "echo", "args": {"text": "b"}}),
        reply("unreached"),
    )
    b.on(h.AFTER_TOOL, lambda e: h.HookResult.block("no"), name="bad_block")
    result = await b.build().run("go")
    assert result.status == "failed"
    results = [m for m in result.state.messages if isinstance(m, h.ToolResultMessage)]
    assert len(results) == 2 and results[0].call_id != results[1].call_id
    assert all(m.is_error and m.content.startswith("Not run:") for m in results)
    assert "bad_block" in results[0].content


async def test_a_hook_error_at_execution_end_fails_the_finished_run() -> None:
    b, _ = builder(reply("done"))

    def broken_audit(event: h.RunEvent) -> None:
        raise OSError("audit log is full")

    agent = b.on(h.EXECUTION_END, broken_audit, name="audit", on_failure="raise").build()
    result = await agent.run("go")
    assert (result.status, result.stop_reason) == ("failed", "error")
    assert result.output == "done"  # what the run produced stays
    assert (result.stop_message or "").startswith("execution_end: HookError: hook user:audit")
    assert "audit log is full" in (result.error or "")


async def test_an_illegal_decision_at_session_end_fails_a_stopped_run_too() -> None:
    b, _ = builder(reply("never"))
    b.on(h.BEFORE_STEP, lambda e: h.HookResult.stop("enough"))
    b.on(h.SESSION_END, lambda e: h.HookResult.block("no"), name="bad_end")
    result = await b.build().run("go")
    assert (result.status, result.stop_reason) == ("failed", "error")
    assert "user:bad_end at session_end" in (result.error or "")


async def test_an_error_policy_ignoring_an_execution_end_error_keeps_the_status() -> None:
    b, _ = builder(reply("done"))

    def broken_audit(event: h.RunEvent) -> None:
        raise OSError("audit log is full")

    b.on(h.EXECUTION_END, broken_audit, name="audit", on_failure="raise")
    b.error_policy(h.ErrorPolicy({"hook": "ignore"}))
    result = await b.build().run("go")
    assert result.status == "completed"


async def test_a_hook_failing_at_execution_end_by_default_is_recorded_status_kept() -> None:
    b, _ = builder(reply("done"))

    def broken_audit(event: h.RunEvent) -> None:
        raise OSError("audit log is full")

    result = await b.on(h.EXECUTION_END, broken_audit, name="audit").build().run("go")
    assert (result.status, result.stop_reason) == ("completed", "completed")
    [decision] = result.decisions.at(h.EXECUTION_END)
    [vote] = decision.votes
    assert vote.error == "OSError: audit log is full"

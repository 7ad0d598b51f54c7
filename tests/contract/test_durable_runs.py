"""The durable-runs contract, one suite for every backend (`backend`): what a run kept by a
store or by Temporal guarantees at the level of the run, whatever keeps it.

- a run with a tool call ends as the same run in memory: messages, decisions, calls;
- a question pauses the run, and an answer takes it on;
- a process lost mid-tool leaves the call in doubt (the tool ran once), or settled by the
  tool's `reconcile` with the call's key, or, for an idempotent tool, run again;
- a process lost after a call finished: the call is not run again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contract.backends import Backend
from temporal.test_runs import build, shape


async def test_a_run_with_a_tool_call_ends_as_the_same_run_in_memory(backend: Backend) -> None:
    local = await build("staging").run("go")
    result = await backend.run(build("staging"), "go")
    assert shape(result) == shape(local)
    assert result.status == "completed" and result.output == "ok"


@pytest.mark.parametrize("approved", [True, False])
async def test_a_question_pauses_the_run_and_an_answer_takes_it_on(
    backend: Backend, approved: bool
) -> None:
    run_id, [question] = await backend.asked(build("prod"), "go")
    assert (question["tool_name"], question["args"]) == ("deploy", {"env": "prod"})
    result = await backend.answered(build("prod"), run_id, question["id"], approved)
    assert (result.status, result.output) == ("completed", "ok")
    [call] = result.tool_calls
    assert call.blocked is not approved
    assert call.result.content.startswith("deployed to prod") is approved
    [asked] = [d for d in result.decisions if d.answer is not None]
    assert (asked.answer or "").startswith("approved" if approved else "denied")


async def test_a_call_whose_process_was_lost_is_in_doubt_and_not_run_again(
    backend: Backend, tmp_path: Path
) -> None:
    result = await backend.crashed(tmp_path, "plain", "tool")
    assert (tmp_path / "log").read_text() == "L0\n"
    [call] = result.tool_calls
    assert call.result.is_error and call.result.data == {"state": "in_doubt", "call_id": "c0"}
    assert (result.status, result.output) == ("completed", "done")


async def test_a_call_in_doubt_is_settled_by_its_tools_reconcile_with_the_same_key(
    backend: Backend, tmp_path: Path
) -> None:
    result = await backend.crashed(tmp_path, "reconciles", "tool")
    assert (tmp_path / "log").read_text() == "L0\n"
    [call] = result.tool_calls
    assert (call.result.content, call.result.is_error) == ("appended L0 (found)", False)
    [decision] = result.decisions.at("reconcile")
    assert (decision.outcome, decision.call_id, decision.hook) == ("done", "c0", "tool:append")
    assert (tmp_path / "reconciled-key").read_text() == (tmp_path / "keys").read_text()
    assert (result.status, result.output) == ("completed", "done")


async def test_an_idempotent_tools_call_in_doubt_is_run_again(
    backend: Backend, tmp_path: Path
) -> None:
    result = await backend.crashed(tmp_path, "idempotent", "tool")
    assert (tmp_path / "log").read_text() == "L0\nL0\n"
    [call] = result.tool_calls
    assert (call.result.content, call.result.is_error) == ("appended L0", False)
    assert (result.status, result.output) == ("completed", "done")


async def test_a_call_that_finished_before_the_process_was_lost_is_not_run_again(
    backend: Backend, tmp_path: Path
) -> None:
    result = await backend.crashed(tmp_path, "plain", "model")
    assert (tmp_path / "log").read_text() == "L0\n"
    [call] = result.tool_calls
    assert (call.result.content, call.result.is_error) == ("appended L0", False)
    assert (result.status, result.output) == ("completed", "done")

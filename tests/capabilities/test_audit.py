"""AuditTrail: every fold, decision and tool call as hash-chained JSONL, and `verify`, which
names the first line that was edited, deleted, moved, forged or cut off."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hookagent as h
from hookagent.capabilities.audit import ZERO_HASH, AuditTrail, verify
from hookagent.capabilities.audit._chain import ChainWriter, canonical, digest, seal
from hookagent.capabilities.audit._describe import plain
from hookagent.testing import Answer, FunctionModel, ScriptedModel, reply, tool_call


@h.tool
def echo(text: str) -> str:
    """Shout the text back."""
    return text.upper()


def no_secrets(event: h.ToolCallEvent) -> h.HookResult | None:
    if "secret" in str(event.args.get("text")):
        return h.HookResult.block("secrets stay inside")
    return None


def agent(trail: AuditTrail, turns: list[Any], **hooks: Any) -> h.Agent:
    builder = h.AgentBuilder().model(ScriptedModel(turns)).tools(echo)
    builder.on(h.BEFORE_TOOL, no_secrets, name="no_secrets")
    for point, fn in hooks.items():
        builder.on(getattr(h, point.upper()), fn, name=point)
    return builder.with_(trail).build()


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


SCRIPT = [
    tool_call("echo", text="hello"),
    tool_call("echo", text="my secret"),
    reply("done"),
]


# -- what a run writes ----------------------------------------------------------------------


async def test_a_run_writes_its_folds_tool_calls_and_decisions_in_one_chain(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    trail = AuditTrail(path)
    result = await agent(trail, SCRIPT).run("go")
    assert (result.status, result.output) == ("completed", "done")
    lines = records(path)

    # the chain: seq from 0, each prev the hash of the line before, each hash its content
    assert [r["seq"] for r in lines] == list(range(len(lines)))
    assert [r["prev"] for r in lines] == [ZERO_HASH] + [r["hash"] for r in lines[:-1]]
    for record in lines:
        body = {k: v for k, v in record.items() if k != "hash"}
        assert record["hash"] == digest(canonical(body))
    assert trail.head == lines[-1]["hash"]
    report = verify(path)
    assert (report.ok, report.records, report.first_bad_line, report.problem) == (
        True,
        len(lines),
        None,
        None,
    )
    assert {r["run_id"] for r in lines} == {result.run_id}
    assert {r["agent_type"] for r in lines} == {"main"}

    events = [r for r in lines if r["type"] == "event"]
    assert [e["point"] for e in events[:2]] == ["session_start", "execution_start"]
    assert [e["point"] for e in events[-2:]] == ["execution_end", "session_end"]
    assert events[2]["prompt"] == "go"
    # the tool call that ran, with its result
    [ran] = [r for r in events if r["point"] == "after_tool"]
    assert (ran["tool"], ran["args"], ran["result"]) == (
        "echo",
        {"text": "hello"},
        {"content": "HELLO", "is_error": False},
    )
    assert ran["call_id"] == result.tool_calls[0].call_id and ran["step"] == 1
    # the blocked call: the audit hook ran after the block and saw it
    blocked = [r for r in events if r["point"] == "before_tool" and r["outcome"] == "block"]
    assert [(r["args"], r["reason"], r["step"]) for r in blocked] == [
        ({"text": "my secret"}, "secrets stay inside", 2)
    ]
    # every decision the run recorded, with the hook that decided and its votes
    decisions = [r for r in lines if r["type"] == "decision"]
    assert [(d["point"], d["outcome"], d["hook"], d["call_id"]) for d in decisions] == [
        (d.point, d.outcome, d.hook, d.call_id) for d in result.decisions
    ]
    assert decisions[0]["votes"] == [
        {"hook": "user:no_secrets", "decision": "block", "reason": "secrets stay inside"}
    ]
    assert decisions[0]["index"] == 0
    # written at the run's next fold: after the block's own event
    assert lines.index(decisions[0]) == lines.index(blocked[0]) + 1
    # the run's end
    end = events[-1]
    assert (end["status"], end["stop_reason"], end["output"], end["steps"]) == (
        "completed",
        "completed",
        "done",
        3,
    )


async def test_the_audit_hook_changes_no_outcome_and_sees_every_fold(tmp_path: Path) -> None:
    plain_result = await agent(AuditTrail(tmp_path / "a.jsonl", points=()), SCRIPT).run("go")
    audited = await agent(AuditTrail(tmp_path / "b.jsonl"), SCRIPT).run("go")
    assert [(d.point, d.outcome, d.hook) for d in audited.decisions] == [
        (d.point, d.outcome, d.hook) for d in plain_result.decisions
    ]
    assert not (tmp_path / "a.jsonl").exists()  # no points, no hooks, no file
    points = [r["point"] for r in records(tmp_path / "b.jsonl") if r["type"] == "event"]
    step = ["before_step", "before_inference", "after_inference"]
    assert points == [
        "session_start",
        "execution_start",
        "user_prompt",
        *step,
        "before_tool",
        "after_tool",
        "after_step",
        "should_continue",
        *step,
        "before_tool",
        "tool_refused",  # the second call is blocked
        "after_step",
        "should_continue",
        *step,
        "after_step",
        "should_continue",
        "stop",
        "execution_end",
        "session_end",
    ]


def test_its_hooks_are_audit_tier_observers_that_always_run(tmp_path: Path) -> None:
    trail = AuditTrail(tmp_path / "a.jsonl")
    hooks = list(trail.hooks())
    assert [hook.point for hook in hooks] == list(h.ALL_POINTS)
    for hook in hooks:
        assert (hook.tier, hook.kind, hook.always, hook.wants_outcome) == (
            "audit",
            "observer",
            True,
            True,
        )
        assert hook.id == "audit:trail" and hook.on_failure == "raise"
    assert not list(trail.tools())
    only = AuditTrail(tmp_path / "b.jsonl", points=[h.BEFORE_TOOL, h.BEFORE_TOOL])
    assert [hook.point for hook in only.hooks()] == [h.BEFORE_TOOL]


async def test_a_stop_ends_the_run_and_the_audit_still_sees_that_fold(tmp_path: Path) -> None:
    def halt(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.stop("enough", stop_reason="guard")

    path = tmp_path / "a.jsonl"
    result = await agent(AuditTrail(path), [tool_call("echo", text="x")], before_tool=halt).run(
        "go"
    )
    assert (result.status, result.stop_reason) == ("stopped", "guard")
    lines = records(path)
    [fold] = [r for r in lines if r.get("point") == "before_tool" and r["type"] == "event"]
    assert (fold["outcome"], fold["reason"], fold["stop_reason"]) == ("stop", "enough", "guard")
    end = lines[-2]  # then session_end
    assert (end["point"], end["status"], end["stop_reason"]) == (
        "execution_end",
        "stopped",
        "guard",
    )
    assert "enough" in end["stop_message"]
    assert [r["hook"] for r in lines if r["type"] == "decision"] == ["user:before_tool"]
    assert verify(path).ok


async def test_an_ask_is_written_with_the_answer_it_got(tmp_path: Path) -> None:
    def confirm(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.ask(f"echo {event.args['text']}?")

    path = tmp_path / "a.jsonl"
    built = agent(
        AuditTrail(path),
        [tool_call("echo", text="a"), tool_call("echo", text="b"), reply("done")],
        before_tool=confirm,
    )
    answers = iter([Answer.approve("fine"), Answer.deny("not b")])
    result = await built.run("go", approver=lambda question: next(answers))
    assert [c.result.content for c in result.tool_calls][:1] == ["A"]
    lines = records(path)
    folds = [r["outcome"] for r in lines if r["type"] == "event" and r["point"] == "before_tool"]
    assert folds == ["ask", "ask"]  # what the fold decided; the answer comes after it
    asks = [r for r in lines if r["type"] == "decision" and r["point"] == "before_tool"]
    assert [(d["outcome"], d["answer"]) for d in asks] == [
        ("ask", "approved: fine"),
        ("block", "denied by approver: not b"),
    ]
    assert verify(path).ok


async def test_long_values_are_cut_and_odd_ones_kept_as_text(tmp_path: Path) -> None:
    @h.tool
    def big() -> dict[Any, Any]:
        """A large result."""
        return {"text": "x" * 50, 7: {1, 2}, "nan": float("nan"), "obj": object()}

    path = tmp_path / "a.jsonl"
    trail = AuditTrail(path, max_chars=20, points=[h.AFTER_TOOL])
    built = (
        h.AgentBuilder()
        .model(ScriptedModel([tool_call("big"), reply("ok")]))
        .tools(big)
        .with_(trail)
        .build()
    )
    await built.run("go")
    [record] = records(path)
    data = record["result"]["data"]
    assert data["text"] == "x" * 20 + "…[+30 chars]"
    assert data["7"] == [1, 2] and data["nan"] == "nan" and data["obj"].startswith("<object")
    assert verify(path).ok


async def test_subagent_runs_go_to_the_same_file(tmp_path: Path) -> None:
    from hookagent.capabilities.subagents import AgentRegistry, AgentSpec, Subagents

    reviewer = AgentSpec(name="reviewer", description="Reviews.", system_prompt="You review.")
    spawn = {
        "name": "Agent",
        "args": {"description": "d", "prompt": "review it", "subagent_type": "reviewer"},
    }
    plans: dict[str, list[Any]] = {"parent": [{"tool_calls": [spawn]}, "Reviewed."]}
    plans["review"] = ["fine"]

    def route(request: h.ModelRequest) -> Any:
        return plans[(request.system_prompt or "parent").split()[-1].rstrip(".")].pop(0)

    path = tmp_path / "a.jsonl"
    built = (
        h.AgentBuilder()
        .model(FunctionModel(route))
        .with_(Subagents(AgentRegistry([reviewer])))
        .with_(AuditTrail(path))
        .build()
    )
    result = await built.run("go")
    assert result.output == "Reviewed."
    lines = records(path)
    child = [r for r in lines if r["agent_type"] == "reviewer"]
    assert child and {r["parent_run_id"] for r in child} == {result.run_id}
    assert [r["point"] for r in child][:1] == ["execution_start"]
    assert child[-1]["point"] == "execution_end" and child[-1]["output"] == "fine"
    starts = [r for r in lines if r.get("point") == "subagent_start"]
    assert [(r["run_id"], r["subagent"]) for r in starts] == [(result.run_id, "reviewer")]
    assert verify(path).ok


def test_bad_settings_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(h.ConfigError, match="points"):
        AuditTrail(tmp_path / "a", points=["before_tool"])  # type: ignore[list-item]
    with pytest.raises(h.ConfigError, match="max_chars"):
        AuditTrail(tmp_path / "a", max_chars=0)
    with pytest.raises(h.ConfigError, match="on_failure"):
        AuditTrail(tmp_path / "a", on_failure="ignore")  # type: ignore[arg-type]


# -- a file that cannot be appended to ------------------------------------------------------


async def test_an_unwritable_trail_fails_the_run_by_default(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"seq": 0, "hash": "cut')  # a writer died mid-line
    result = await agent(AuditTrail(path), [reply("done")]).run("go")
    assert result.status == "failed"
    assert "cut-off line" in (result.error or "") and str(path) in (result.error or "")
    assert "audit:trail" in (result.error or "")


async def test_on_failure_proceed_runs_on_unaudited(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text("not a record\n")
    result = await agent(AuditTrail(path, on_failure="proceed"), [reply("done")]).run("go")
    assert result.status == "completed"
    assert "not an audit record" in caplog.text
    assert path.read_text() == "not a record\n"


async def test_on_failure_block_refuses_the_tool_call(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    trail = AuditTrail(path, points=[h.BEFORE_TOOL], on_failure="block")
    built = agent(trail, [tool_call("echo", text="x"), reply("done")])
    os.mkdir(path)  # a directory: it cannot be opened for writing
    result = await built.run("go")
    [call] = result.tool_calls
    assert call.blocked and "audit:trail" in call.result.content


# -- the writer ------------------------------------------------------------------------------


def test_the_writer_continues_a_chain_another_writer_appended_to(tmp_path: Path) -> None:
    path = str(tmp_path / "a.jsonl")
    first, second = ChainWriter(path), ChainWriter(path)
    for n in range(5):
        first.append({"n": n, "by": "first"})
        second.append({"n": n, "by": "second"})
        second.append({"n": n, "by": "second again"})
    report = verify(path)
    assert (report.ok, report.records) == (True, 15)
    assert report.head == second.head != first.head
    first.close()
    first.append({"n": 5})  # reopens, reads the tail
    assert verify(path).records == 16 and verify(path).head == first.head


def test_the_writer_notices_the_tail_changed_under_it(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    writer = ChainWriter(str(path))
    writer.append({"n": 0})
    writer.append({"n": 1})
    # the file is replaced by a same-sized one by hand: the cached head no longer matches
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + lines[0])
    writer.append({"n": 2})
    assert json.loads(path.read_bytes().splitlines()[2])["seq"] == 1  # continued from the tail


def test_a_rotated_file_starts_a_new_chain(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    writer = ChainWriter(str(path))
    writer.append({"n": 0})
    path.rename(tmp_path / "a.1.jsonl")
    writer.append({"n": 1})
    assert [r["seq"] for r in records(path)] == [0]
    assert verify(path).ok and verify(tmp_path / "a.1.jsonl").ok


def test_fsync_writes_the_same_chain(tmp_path: Path) -> None:
    path = str(tmp_path / "a.jsonl")
    writer = ChainWriter(path, fsync=True)
    for n in range(3):
        writer.append({"n": n})
    assert verify(path).records == 3


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(st.lists(JSON_VALUES, min_size=1, max_size=6))
@settings(max_examples=60, deadline=None)
def test_any_value_round_trips_through_the_chain(values: list[Any]) -> None:
    """Int keys, NaN, non-ASCII text, lone surrogates: what is hashed is what is read."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "a.jsonl")
        writer = ChainWriter(path)
        for value in values:
            writer.append({"value": plain(value, None)})
        writer.close()
        report = verify(path)
        assert (report.ok, report.records) == (True, len(values)), report.problem


# -- tampering ------------------------------------------------------------------------------


def build(bodies: list[dict[str, Any]]) -> list[bytes]:
    """A chain as the writer seals it, line by line."""
    lines, prev = [], ZERO_HASH
    for seq, body in enumerate(bodies):
        prev, line = seal({**body, "seq": seq, "prev": prev})
        lines.append(line)
    return lines


def check(lines: list[bytes], head: str | None = None) -> Any:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "a.jsonl"
        path.write_bytes(b"".join(lines))
        return verify(path, head=head)


def head_of(lines: list[bytes]) -> str:
    return str(json.loads(lines[-1])["hash"])


@pytest.fixture(scope="module")
def run_lines() -> list[bytes]:
    """A real run's audit file (a blocked call, two that ran), line by line."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "a.jsonl"
        turns = [tool_call("echo", text=t) for t in ("a", "secret", "b")] + [reply("done")]
        asyncio.run(agent(AuditTrail(path), turns).run("go"))
        return path.read_bytes().splitlines(keepends=True)


BODIES = st.lists(
    st.dictionaries(st.sampled_from(["point", "tool", "args", "n"]), JSON_VALUES, max_size=3),
    min_size=2,
    max_size=20,
)


def chain(data: st.DataObject, run_lines: list[bytes]) -> list[bytes]:
    """Either the real run's chain or a random one."""
    if data.draw(st.booleans(), label="real run"):
        return list(run_lines)
    return build([{k: plain(v, None) for k, v in body.items()} for body in data.draw(BODIES)])


def edited(record: dict[str, Any], key: str) -> Any:
    value = record[key]
    if key == "seq":
        return value + 1
    if key in ("prev", "hash"):
        return ("f" if value[0] != "f" else "0") + value[1:]
    return ["edited", value]


def test_the_exact_problems_on_a_real_run(run_lines: list[bytes]) -> None:
    assert check(run_lines).ok and len(run_lines) > 20
    after_tool = next(
        n for n, line in enumerate(run_lines) if json.loads(line).get("point") == "after_tool"
    )
    record = json.loads(run_lines[after_tool])
    record["result"]["content"] = "NOTHING TO SEE"
    lines = list(run_lines)
    lines[after_tool] = (json.dumps(record) + "\n").encode()
    line = after_tool + 1
    assert check(lines).problem == f"line {line}: hash does not match its content (edited)"
    del lines[after_tool]
    assert check(lines).problem == f"line {line}: seq {line} after {line - 2} (a line is missing)"
    lines = list(run_lines)
    lines[6], lines[7] = lines[7], lines[6]
    assert check(lines).problem == (
        "line 7: prev does not match line 6 (a line was deleted, inserted or moved)"
    )
    lines = [*run_lines[:-1], run_lines[-1][:40]]
    assert check(lines).problem == f"line {len(lines)}: last line is cut off (truncated)"
    lines = [*run_lines[:3], b"{oops\n", *run_lines[3:]]
    report = check(lines)
    assert (report.problem, report.first_bad_line, report.records) == ("line 4: not JSON", 4, 3)
    lines = [*run_lines[:3], b'{"seq": 3}\n', *run_lines[3:]]
    assert check(lines).problem == "line 4: not an audit record (it needs seq, prev and hash)"
    assert (
        check(run_lines[1:]).problem == "line 1: seq 1 at the start of the file (a line is missing)"
    )


@given(data=st.data())
@settings(max_examples=150, deadline=None)
def test_an_edited_field_is_named(data: st.DataObject, run_lines: list[bytes]) -> None:
    lines = chain(data, run_lines)
    index = data.draw(st.integers(0, len(lines) - 1), label="line")
    record = json.loads(lines[index])
    key = data.draw(st.sampled_from(sorted(record)), label="field")
    record[key] = edited(record, key)
    lines[index] = (json.dumps(record) + "\n").encode()
    report = check(lines)
    assert not report.ok and report.first_bad_line == index + 1 and report.records == index
    assert report.problem == f"line {index + 1}: hash does not match its content (edited)"


@given(data=st.data())
@settings(max_examples=150, deadline=None)
def test_deleted_lines_are_named(data: st.DataObject, run_lines: list[bytes]) -> None:
    lines = chain(data, run_lines)
    index = data.draw(st.integers(0, len(lines) - 2), label="first deleted")
    count = data.draw(st.integers(1, len(lines) - 1 - index), label="how many")
    del lines[index : index + count]
    report = check(lines)
    assert not report.ok and report.first_bad_line == index + 1
    assert report.problem is not None and report.problem.endswith("(a line is missing)")


@given(data=st.data())
@settings(max_examples=150, deadline=None)
def test_swapped_lines_are_named(data: st.DataObject, run_lines: list[bytes]) -> None:
    lines = chain(data, run_lines)
    first = data.draw(st.integers(0, len(lines) - 2), label="first")
    second = data.draw(st.integers(first + 1, len(lines) - 1), label="second")
    lines[first], lines[second] = lines[second], lines[first]
    report = check(lines)
    assert not report.ok and report.first_bad_line == first + 1
    assert report.problem is not None
    assert report.problem.endswith("(a line was deleted, inserted or moved)")


@given(data=st.data())
@settings(max_examples=150, deadline=None)
def test_a_cut_off_last_line_is_named(data: st.DataObject, run_lines: list[bytes]) -> None:
    lines = chain(data, run_lines)
    cut = data.draw(st.integers(1, len(lines[-1]) - 1), label="bytes kept")
    lines[-1] = lines[-1][:cut]
    report = check(lines)
    assert not report.ok and report.first_bad_line == len(lines)
    assert report.problem == f"line {len(lines)}: last line is cut off (truncated)"


@given(data=st.data())
@settings(max_examples=150, deadline=None)
def test_a_file_truncated_anywhere_is_caught_with_its_head(
    data: st.DataObject, run_lines: list[bytes]
) -> None:
    lines = chain(data, run_lines)
    blob = b"".join(lines)
    size = data.draw(st.integers(0, len(blob) - 1), label="bytes kept")
    kept = blob[:size].splitlines(keepends=True)
    report = check(kept, head=head_of(lines))
    assert not report.ok
    if kept and not kept[-1].endswith(b"\n"):
        assert report.first_bad_line == len(kept) and "truncated" in (report.problem or "")
        assert not check(kept).ok  # mid-line: caught without the head too
    else:  # at a line boundary: a valid shorter chain, which only the head gives away
        assert check(kept).ok
        assert report.first_bad_line is None and report.records == len(kept)
        assert "not the expected head" in (report.problem or "")


@given(data=st.data())
@settings(max_examples=150, deadline=None)
def test_a_forged_line_with_a_recomputed_hash_is_named(
    data: st.DataObject, run_lines: list[bytes]
) -> None:
    lines = chain(data, run_lines)
    at = data.draw(st.integers(0, len(lines)), label="inserted before")
    fits = data.draw(st.booleans(), label="prev fits its predecessor")
    forged = json.loads(data.draw(st.sampled_from(lines), label="copied"))
    del forged["hash"]
    forged["forged"] = True
    forged["seq"] = at
    forged["prev"] = json.loads(lines[at - 1])["hash"] if at else ZERO_HASH
    if not fits:
        forged["prev"] = digest(forged["prev"])
    lines.insert(at, seal(forged)[1])
    report = check(lines)
    bad = at + 1 if not fits else at + 2
    if bad > len(lines):  # a fitting line appended at the end: a valid longer chain
        assert report.ok
        head = head_of(lines[:-1])
        report = check(lines, head=head)
        assert report.problem == f"line {bad - 1}: comes after the expected head, line {at}"
        return
    assert not report.ok and report.first_bad_line == bad
    assert report.problem == (
        f"line {bad}: prev does not "
        + ("start a chain" if bad == 1 else f"match line {bad - 1}")
        + " (a line was deleted, inserted or moved)"
    )


def test_an_empty_file_is_an_intact_chain_and_a_head_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"")
    assert verify(path).ok and verify(path).records == 0 and verify(path).head == ZERO_HASH
    lines = build([{"n": n} for n in range(3)])
    assert check(lines, head=head_of(lines)).ok
    assert not check(lines, head="0" * 64).ok
    with pytest.raises(FileNotFoundError):
        verify(tmp_path / "missing.jsonl")


# -- several writers ------------------------------------------------------------------------


@h.tool
async def slow_echo(text: str) -> str:
    """Shout back, letting other tasks run first."""
    await asyncio.sleep(0)
    return text.upper()


def slow_agent(trail: AuditTrail, steps: int) -> h.Agent:
    turns = [tool_call("slow_echo", text=f"t{n}") for n in range(steps)] + [reply("done")]
    builder = h.AgentBuilder().model(ScriptedModel(turns)).tools(slow_echo)
    return builder.limits(max_steps=steps + 5).with_(trail).build()


def runs_in(lines: list[dict[str, Any]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for record in lines:
        if record["type"] == "event":
            out.setdefault(record["run_id"], []).append(record["point"])
    return out


def switches(lines: list[dict[str, Any]]) -> int:
    ids = [r["run_id"] for r in lines]
    return sum(1 for a, b in itertools.pairwise(ids) if a != b)


async def test_concurrent_runs_append_to_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    shared = AuditTrail(path)
    agents = [slow_agent(AuditTrail(path), 10), slow_agent(AuditTrail(path), 10)]
    agents += [slow_agent(shared, 10), slow_agent(shared, 10)]
    results = await asyncio.gather(*(a.run("go") for a in agents))
    assert all(r.status == "completed" for r in results)
    lines = records(path)
    report = verify(path)
    assert (report.ok, report.records) == (True, len(lines)), report.problem
    by_run = runs_in(lines)
    assert set(by_run) == {r.run_id for r in results}
    for points in by_run.values():  # each run whole, in order
        assert points[:2] == ["session_start", "execution_start"]
        assert points[-2:] == ["execution_end", "session_end"]
        assert points.count("after_tool") == 10
    assert switches(lines) > 10  # they really did interleave


WORKER = textwrap.dedent(
    """
    import os, sys, time
    import hookagent as h
    from hookagent.capabilities.audit import AuditTrail
    from hookagent.testing import ScriptedModel, reply, tool_call

    @h.tool
    def echo(text: str) -> str:
        \"\"\"Echo.\"\"\"
        return text

    path, ready, go = sys.argv[1:4]
    turns = [tool_call("echo", text=f"t{n}") for n in range(150)] + [reply("done")]
    agent = (
        h.AgentBuilder().model(ScriptedModel(turns)).tools(echo).limits(max_steps=200)
        .with_(AuditTrail(path)).build()
    )
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.001)
    print(agent.run_sync("go").status)
    """
)


def test_two_processes_append_to_one_chain(tmp_path: Path) -> None:
    path, go = tmp_path / "a.jsonl", tmp_path / "go"
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    workers = [
        subprocess.Popen(
            [sys.executable, str(script), str(path), str(tmp_path / f"ready{n}"), str(go)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    try:
        for n in range(2):
            wait_for(tmp_path / f"ready{n}")
        go.touch()
        outputs = [worker.communicate(timeout=120)[0] for worker in workers]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    assert [out.strip() for out in outputs] == ["completed", "completed"]
    lines = records(path)
    report = verify(path)
    assert (report.ok, report.records) == (True, len(lines)), report.problem
    by_run = runs_in(lines)
    assert len(by_run) == 2
    assert all(points.count("after_tool") == 150 for points in by_run.values())
    assert switches(lines) >= 1


def wait_for(path: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.005)

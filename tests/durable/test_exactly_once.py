"""Exactly-once tool effects across an interrupted process: a finished call is never run
again, a call started without a recorded end is in doubt and is not simply re-run."""

from __future__ import annotations

import contextlib
from typing import Any

import hookagent as h
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn


class Crash(BaseException):
    """Stands for the process dying: nothing below the kernel catches it."""


def calls(*names: str) -> ScriptedModel:
    turns: list[Any] = [
        turn("", {"name": name, "args": {"line": f"L{i}"}, "id": f"c{i}"})
        for i, name in enumerate(names)
    ]
    return ScriptedModel([*turns, reply("done")])


class Appender:
    """A tool with a visible effect, which can crash after (or before) taking effect."""

    def __init__(self, name: str = "append", *, idempotent: bool = False) -> None:
        self.name = name
        self.description = "Append a line to the log."
        self.parameters = {
            "type": "object",
            "properties": {"line": {"type": "string"}},
            "required": ["line"],
        }
        self.idempotent = idempotent
        self.lines: list[str] = []
        self.crash_after: str | None = None

    async def __call__(self, args: Any, ctx: Any, /) -> h.ToolResult:
        self.lines.append(args["line"])
        if args["line"] == self.crash_after:
            self.crash_after = None
            raise Crash
        return h.ToolResult(content=f"appended {args['line']}")


def build(store: MemoryStore, model: ScriptedModel, tool: Appender, **hooks: Any) -> h.Agent:
    builder = h.AgentBuilder().model(model).tools(tool).store(store)
    for point, fn in hooks.items():
        builder.on(getattr(h, point.upper()), fn)
    return builder.build()


async def interrupted(
    store: MemoryStore, model: ScriptedModel, tool: Appender, **hooks: Any
) -> str:
    with contextlib.suppress(Crash):
        await build(store, model, tool, **hooks).run("log", session="s")
    [run] = await store.runs((await store.session("s")).id)  # type: ignore[union-attr]
    return run.id


async def test_a_call_started_but_never_recorded_as_ended_is_in_doubt_and_not_re_run() -> None:
    store, tool, model = MemoryStore(), Appender(), calls("append", "append")
    tool.crash_after = "L1"  # the effect happened, then the process died
    seen: list[bool] = []
    hooks = {"before_tool": lambda e: seen.append(e.in_doubt)}
    run_id = await interrupted(store, model, tool, **hooks)
    assert tool.lines == ["L0", "L1"] and seen == [False, False]
    result = await build(store, model, tool, **hooks).resume(run_id)
    assert result.status == "completed"
    assert tool.lines == ["L0", "L1"]  # each line exactly once
    doubt = result.steps[1].executions[0].result
    assert doubt.is_error and "In doubt" in doubt.content
    assert doubt.data == {"state": "in_doubt", "call_id": "c1"}
    assert seen == [False, False, True]  # told of the doubt; c1's first fold was not re-run
    record = next(c for c in (await store.load(run_id)).calls if c.call_id == "c1")  # type: ignore[union-attr]
    assert record.state == "in_doubt"


async def test_an_idempotent_tool_in_doubt_is_run_again() -> None:
    store, tool, model = MemoryStore(), Appender(idempotent=True), calls("append")
    tool.crash_after = "L0"
    run_id = await interrupted(store, model, tool)
    result = await build(store, model, tool).resume(run_id)
    assert result.status == "completed" and tool.lines == ["L0", "L0"]
    assert not result.steps[0].executions[0].result.is_error


async def test_a_call_in_doubt_runs_again_when_a_human_approves() -> None:
    store, tool, model = MemoryStore(), Appender(), calls("append")
    tool.crash_after = "L0"

    def check(event: h.ToolCallEvent) -> h.HookResult | None:
        return (
            h.HookResult.ask("It may have run already. Run it again?") if event.in_doubt else None
        )

    run_id = await interrupted(store, model, tool, before_tool=check)
    result = await build(store, model, tool, before_tool=check).resume(
        run_id, approver=lambda q: True
    )
    assert result.status == "completed" and tool.lines == ["L0", "L0"]


async def test_a_finished_call_is_not_run_again_when_the_process_dies_after_it() -> None:
    store, tool, model = MemoryStore(), Appender(), calls("append")
    crashed = False

    def die_once(event: h.ToolResultEvent) -> None:
        nonlocal crashed
        if not crashed:
            crashed = True
            raise Crash

    with contextlib.suppress(Crash):
        await build(store, model, tool, after_tool=die_once).run("log", session="s")
    [run] = await store.runs((await store.session("s")).id)  # type: ignore[union-attr]
    result = await build(store, model, tool, after_tool=die_once).resume(run.id)
    assert result.status == "completed" and tool.lines == ["L0"]
    assert result.steps[0].executions[0].result.content == "appended L0"
    record = next(c for c in (await store.load(run.id)).calls if c.call_id == "c0")  # type: ignore[union-attr]
    assert (record.state, record.result is not None) == ("done", True)
    assert len(record.idempotency_key) == 32

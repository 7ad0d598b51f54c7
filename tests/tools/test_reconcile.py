"""What a tool is given to make its effect happen once: the call's idempotency key in its
context, and `@tool(reconcile=...)` to settle a call a crash left in doubt."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import pytest

import hookagent as h
from hookagent._canonical import call_key
from hookagent.durable import _codec as codec
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn
from hookagent.tools._base import Reconciled, Reconciles
from hookagent.tools._function import ReconcilingTool


class Crash(BaseException):
    """Stands for the process dying."""


def script() -> ScriptedModel:
    calls = [{"name": "send", "args": {"to": f"user{n}"}, "id": f"c{n}"} for n in (0, 1)]
    return ScriptedModel([turn("", *calls), reply("sent")], by_history=True)


async def test_a_tool_function_gets_the_calls_key_in_a_run_without_a_store() -> None:
    keys: dict[str, str] = {}

    @h.tool
    def send(to: str, ctx: h.ToolContext) -> str:
        """Send a message."""
        keys[ctx.call.id] = ctx.idempotency_key
        return "sent"

    result = await h.AgentBuilder().model(script()).tools(send).build().run("go")
    expected = {
        f"c{n}": call_key(result.run_id, f"c{n}", codec.canonical({"to": f"user{n}"}))
        for n in (0, 1)
    }
    assert keys == expected and len(set(keys.values())) == 2
    assert all(len(key) == 32 for key in keys.values())


async def test_the_key_is_that_of_the_arguments_a_hook_rewrote() -> None:
    keys: list[str] = []

    @h.tool
    def send(to: str, ctx: h.ToolContext) -> str:
        """Send a message."""
        keys.append(ctx.idempotency_key)
        return "sent"

    def redirect(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.modify(args={"to": "ops"})

    agent = h.AgentBuilder().model(script()).tools(send).on(h.BEFORE_TOOL, redirect).build()
    result = await agent.run("go")
    assert keys[0] == call_key(result.run_id, "c0", codec.canonical({"to": "ops"}))


def test_reconcile_makes_a_reconciling_tool_and_a_bad_one_is_a_config_error() -> None:
    def check(args: Mapping[str, Any], key: str) -> Reconciled:
        return Reconciled.not_done()

    @h.tool(reconcile=check)
    def send(to: str) -> str:
        """Send a message."""
        return "sent"

    def plain(to: str) -> str:
        """Send a message."""
        return "sent"

    assert isinstance(send, ReconcilingTool) and isinstance(send, Reconciles)
    assert send.reconcile is check and send.name == "send"
    assert not isinstance(h.tool(plain), Reconciles)
    with pytest.raises(h.ConfigError, match="reconcile must be a function"):
        h.tool(reconcile="yes")(plain)  # type: ignore[arg-type]


async def test_a_tool_functions_reconcile_settles_its_doubt_under_the_same_key() -> None:
    store, sent, asked = MemoryStore(), list[str](), list[str]()

    async def check(args: Mapping[str, Any], key: str) -> Reconciled:
        asked.append(key)
        if key in sent:
            return Reconciled.done(h.ToolResult(content=f"sent to {args['to']} (found)"))
        return Reconciled.not_done()

    @h.tool(reconcile=check)
    def send(to: str, ctx: h.ToolContext) -> str:
        """Send a message."""
        sent.append(ctx.idempotency_key)
        if to == "user0" and len(sent) == 1:
            raise Crash  # after the effect
        return f"sent to {to}"

    def agent() -> h.Agent:
        return h.AgentBuilder().model(script()).tools(send).store(store).build()

    with contextlib.suppress(Crash):
        await agent().run("go", session="s")
    [run] = await store.runs((await store.session("s")).id)  # type: ignore[union-attr]
    result = await agent().resume(run.id)
    assert result.status == "completed"
    assert [e.result.content for e in result.tool_calls] == [
        "sent to user0 (found)",
        "sent to user1",
    ]
    assert asked == sent[:1] and len(sent) == 2  # user0 once, user1 once
    assert [d.outcome for d in result.decisions.at("reconcile")] == ["done"]


def test_reconciled_constructors() -> None:
    result = h.ToolResult(content="ok")
    assert Reconciled.done(result) == Reconciled(outcome="done", result=result)
    assert Reconciled.not_done("absent").reason == "absent"
    assert Reconciled.unknown("down") == Reconciled(outcome="unknown", reason="down")


def test_the_key_is_computed_once_when_first_read_and_the_context_is_read_only() -> None:
    computed: list[int] = []

    def compute() -> str:
        computed.append(1)
        return "k-1"

    ctx = h.ToolContext(
        run=RunView(RunState()), call=h.ToolCall(id="c1", name="t"), idempotency_key=compute
    )
    assert computed == []
    assert (ctx.idempotency_key, ctx.idempotency_key, computed) == ("k-1", "k-1", [1])
    assert h.ToolContext(run=ctx.run, call=ctx.call).idempotency_key == ""
    with pytest.raises(AttributeError, match="read-only"):
        ctx.call = h.ToolCall(id="c2", name="t")  # type: ignore[misc]

"""OpenTelemetry spans for a run: run → step → model call / tool call, decisions as events,
a subagent's run nested in its parent's tool span."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import hookagent as h
from hookagent.capabilities.subagents import AgentRegistry, AgentSpec, Subagents
from hookagent.capabilities.tracing import Tracing
from hookagent.testing import FunctionModel, ScriptedModel, reply, turn


@pytest.fixture
def spans() -> Any:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


@h.tool
def rm(path: str) -> str:
    """Remove a file."""
    return f"removed {path}"


async def test_spans_nest_run_step_model_tool_and_carry_the_decisions(spans: Any) -> None:
    provider, exporter = spans
    model = ScriptedModel(
        [
            turn("", {"name": "rm", "args": {"path": "a.txt"}, "id": "c1"}),
            turn("", {"name": "rm", "args": {"path": "/"}, "id": "c2"}),
            reply("done"),
        ]
    )
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(rm)
        .with_(Tracing(provider))
        .on(
            h.BEFORE_TOOL,
            lambda e: h.HookResult.block("not /") if e.args["path"] == "/" else None,
            name="no_root",
        )
        .build()
    )
    result = await agent.run("clean up")
    assert result.status == "completed"
    finished = {s.name: [] for s in exporter.get_finished_spans()}
    for span in exporter.get_finished_spans():
        finished[span.name].append(span)
    [run] = finished["hookagent.run"]
    assert len(finished["hookagent.step"]) == 3 and len(finished["hookagent.model"]) == 3
    assert len(finished["hookagent.tool"]) == 2
    assert all(s.parent.span_id == run.context.span_id for s in finished["hookagent.step"])
    step_ids = {s.context.span_id for s in finished["hookagent.step"]}
    assert all(s.parent.span_id in step_ids for s in finished["hookagent.tool"])
    assert all(s.parent.span_id in step_ids for s in finished["hookagent.model"])
    blocked = [s for s in finished["hookagent.tool"] if s.attributes["hookagent.call_id"] == "c2"]
    assert blocked[0].attributes["hookagent.tool.error"] is True
    events = [e for s in finished["hookagent.step"] for e in s.events]
    assert any(
        e.attributes["hookagent.outcome"] == "block"
        and e.attributes["hookagent.hook"] == "user:no_root"
        for e in events
    )
    assert run.attributes["hookagent.status"] == "completed"
    assert finished["hookagent.model"][0].attributes["gen_ai.response.model"] == "scripted"


async def test_a_subagent_run_is_a_child_of_the_parent_tool_span(spans: Any) -> None:
    provider, exporter = spans

    def model(request: h.ModelRequest) -> Any:
        if request.system_prompt == "You help.":
            return "helped"
        if isinstance(request.messages[-1], h.ToolResultMessage):
            return "all done"
        args = {"description": "d", "prompt": "p", "subagent_type": "helper"}
        return {"tool_calls": [{"name": "Agent", "args": args, "id": "a1"}]}

    helper = AgentSpec(name="helper", description="Helps.", system_prompt="You help.")
    agent = (
        h.AgentBuilder()
        .model(FunctionModel(model))
        .with_(Subagents(AgentRegistry([helper])))
        .with_(Tracing(provider))
        .build()
    )
    await agent.run("go")
    runs = [s for s in exporter.get_finished_spans() if s.name == "hookagent.run"]
    child = next(s for s in runs if s.attributes["hookagent.agent_type"] == "helper")
    tool = next(s for s in exporter.get_finished_spans() if s.name == "hookagent.tool")
    assert child.parent.span_id == tool.context.span_id
    assert child.attributes["hookagent.parent_run_id"] != ""

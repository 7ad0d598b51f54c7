"""A resumed durable run's trace: the step it takes up again from its journal (whose folds
call no other hook) has its step, model and tool spans once, as every later step does, under
a run span of its own; an audit trail still writes that step's events once."""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import hookagent as h
from hookagent.capabilities.audit import AuditTrail
from hookagent.capabilities.tracing import Tracing
from hookagent.durable._answers import answer_json
from hookagent.store import MemoryStore
from hookagent.testing import ScriptedModel, reply, turn


class Crash(BaseException):
    """Stands for the process dying: nothing below the kernel catches it."""


def script() -> ScriptedModel:
    return ScriptedModel(
        [
            turn("Deploying.", {"name": "deploy", "args": {"env": "prod"}, "id": "c1"}),
            turn("And dev.", {"name": "deploy", "args": {"env": "dev"}, "id": "c2"}),
            reply("Done."),
        ]
    )


@h.tool
def deploy(env: str) -> str:
    """Deploy to an environment."""
    return f"deployed to {env}"


def traced() -> tuple[Tracing, InMemorySpanExporter]:
    """A `Tracing` of its own, as each process has: its spans land in the exporter."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Tracing(provider), exporter


def agent(store: MemoryStore, model: ScriptedModel, *extra: Any, **hooks: Any) -> h.Agent:
    builder = h.AgentBuilder().model(model).tools(deploy).store(store)
    for capability in extra:
        builder.with_(capability)
    for point, fn in hooks.items():
        builder.on(getattr(h, point.upper()), fn)
    return builder.build()


def ask_prod(event: h.ToolCallEvent) -> h.HookResult | None:
    return h.HookResult.ask("Deploy to prod?") if event.args["env"] == "prod" else None


def one_trace(exporter: InMemorySpanExporter) -> dict[str, list[Any]]:
    """The exporter's spans by name, checked to form one trace under one run span."""
    spans = exporter.get_finished_spans()
    by_name: dict[str, list[Any]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
    [run] = by_name["hookagent.run"]
    assert {s.context.trace_id for s in spans} == {run.context.trace_id}
    steps = {s.context.span_id for s in by_name["hookagent.step"]}
    assert all(s.parent.span_id == run.context.span_id for s in by_name["hookagent.step"])
    assert all(s.parent.span_id in steps for s in by_name["hookagent.model"])
    assert all(s.parent.span_id in steps for s in by_name["hookagent.tool"])
    return by_name


def each_once(by_name: dict[str, list[Any]]) -> None:
    """Steps 1 to 3, their model calls and both tool calls, each exactly once."""
    counted = Counter(s.attributes["hookagent.step"] for s in by_name["hookagent.step"])
    assert counted == {1: 1, 2: 1, 3: 1}
    counted = Counter(s.attributes["hookagent.step"] for s in by_name["hookagent.model"])
    assert counted == {1: 1, 2: 1, 3: 1}
    counted = Counter(s.attributes["hookagent.call_id"] for s in by_name["hookagent.tool"])
    assert counted == {"c1": 1, "c2": 1}


@pytest.mark.parametrize("traced_before", [True, False], ids=["traced", "untraced"])
async def test_a_run_resumed_after_a_question_traces_the_step_it_takes_up_again(
    traced_before: bool,
) -> None:
    """Whether or not the first process traced (so whether tracing's folds are in the
    journal), the resumed run's trace has step 1, its reply, the prod call and the ask."""
    store, model = MemoryStore(), script()
    first_tracing = [traced()[0]] if traced_before else []
    first = await agent(store, model, *first_tracing, before_tool=ask_prod).run(
        "ship it", session="release"
    )
    assert first.status == "waiting"
    [question] = await store.questions(first.run_id)
    assert await store.answer(question.id, answer_json(True), 0.0)

    tracing, exporter = traced()
    result = await agent(store, model, tracing, before_tool=ask_prod).resume(first.run_id)
    assert result.status == "completed" and len(model.calls) == 3
    by_name = one_trace(exporter)
    each_once(by_name)
    [run] = by_name["hookagent.run"]
    assert run.attributes["hookagent.resumed"] is True
    assert run.attributes["hookagent.status"] == "completed"
    [step_1] = [s for s in by_name["hookagent.step"] if s.attributes["hookagent.step"] == 1]
    outcomes = [
        (e.attributes["hookagent.point"], e.attributes["hookagent.outcome"]) for e in step_1.events
    ]
    assert outcomes == [("before_tool", "ask")], "the step's decisions, none of before"
    [prod] = [s for s in by_name["hookagent.tool"] if s.attributes["hookagent.call_id"] == "c1"]
    assert prod.parent.span_id == step_1.context.span_id
    assert prod.attributes["hookagent.tool.error"] is False


async def test_a_run_resumed_after_its_process_died_mid_step_traces_that_step_once(
    tmp_path: Path,
) -> None:
    """The process dies at step 1's after_step, its tool call written: the resumed run takes
    step 1's folds, reply and result from its journal. Its trace has the step once; the audit
    trail, which both processes write, has each of the step's written folds once."""
    store, model, trail = MemoryStore(), script(), tmp_path / "audit.jsonl"

    def die(event: h.StepEndEvent) -> None:
        raise Crash

    with contextlib.suppress(Crash):
        first = agent(store, model, traced()[0], AuditTrail(trail), after_step=die)
        await first.run("ship it", session="release")
    [kept] = await store.runs((await store.session("release")).id)  # type: ignore[union-attr]

    tracing, exporter = traced()
    resumed = agent(store, model, tracing, AuditTrail(trail))
    result = await resumed.resume(kept.id)
    assert result.status == "completed" and len(model.calls) == 3
    each_once(one_trace(exporter))
    events = [json.loads(line) for line in trail.read_text().splitlines()]
    written = Counter(
        (e["point"], e["step"], e.get("call_id")) for e in events if e["type"] == "event"
    )
    for place in [
        ("before_step", 1, None),
        ("before_inference", 1, None),
        ("after_inference", 1, None),
        ("before_tool", 1, "c1"),
    ]:
        assert written[place] == 1, place


async def test_a_run_paused_at_a_question_ends_and_exports_its_spans() -> None:
    """No execution_end comes for a paused run: its spans end when it returns, the run's
    marked waiting, the step and call it paused in marked paused, and nothing of it stays
    in the process."""
    store, model = MemoryStore(), script()
    tracing, exporter = traced()
    first = await agent(store, model, tracing, before_tool=ask_prod).run("ship it", session="s")
    assert first.status == "waiting"
    by_name = one_trace(exporter)
    [run] = by_name["hookagent.run"]
    assert run.attributes["hookagent.status"] == "waiting"
    [step], [call] = by_name["hookagent.step"], by_name["hookagent.tool"]
    assert step.attributes["hookagent.paused"] and call.attributes["hookagent.paused"]
    assert call.attributes["hookagent.call_id"] == "c1"
    assert tracing._runs == {}

"""`Tracing`: OpenTelemetry spans for runs, steps, model calls and tool calls, with every
hook decision as a span event.

    run (hookagent.run) ─ step (hookagent.step) ─┬─ model call (hookagent.model)
                                                 └─ tool call  (hookagent.tool)

Spans are opened and closed by audit-tier observer hooks that run after every other hook
(`always`), so they see each fold's final outcome and never change it. A subagent's run is a
child of the parent's tool span (the tool runs it in the same context). A durable run taken
up again past its start fires no execution_start: its run span opens at the first hook that
sees it (`hookagent.resumed`), and the folds of the step it takes up from its journal call
these observers as they call no other hook (`Hook.replayed`). Needs the `otel`
extra (`opentelemetry-api`); without a configured SDK the spans cost next to nothing, and an
agent without `Tracing` runs no tracing code at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, final

from hookagent._errors import ConfigError
from hookagent.hooks._decision import Decision
from hookagent.hooks._events import (
    InferenceEvent,
    InferenceResultEvent,
    RunEvent,
    StepEndEvent,
    StepEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from hookagent.hooks._hook import Hook, observers
from hookagent.hooks._points import (
    AFTER_INFERENCE,
    AFTER_STEP,
    AFTER_TOOL,
    BEFORE_INFERENCE,
    BEFORE_STEP,
    BEFORE_TOOL,
    EXECUTION_END,
    EXECUTION_START,
)
from hookagent.kernel._result import RunResult
from hookagent.kernel._view import RunView
from hookagent.tools._base import Tool

__all__ = ["Tracing"]

PREFIX: Final = "hookagent"


@dataclass(slots=True)
class _Spans:
    """The open spans of one run, and how many of its decisions became span events."""

    run: Any
    token: Any
    step: Any = None
    model: Any = None
    tools: dict[str, tuple[Any, Any]] = field(default_factory=dict[str, tuple[Any, Any]])
    """call id → (span, context token)."""
    reported: int = 0


@final
class Tracing:
    name = "tracing"

    def __init__(self, tracer_provider: Any = None, *, tracer_name: str = PREFIX) -> None:
        try:
            from opentelemetry import context, trace
        except ImportError as exc:
            raise ConfigError(
                "tracing needs OpenTelemetry: pip install 'hookagent[otel]'", key="Tracing"
            ) from exc
        self._trace = trace
        self._context = context
        self.tracer = trace.get_tracer(tracer_name, tracer_provider=tracer_provider)
        self._runs: dict[str, _Spans] = {}

    def tools(self) -> Iterable[Tool]:
        return ()

    def hooks(self) -> Iterable[Hook[Any]]:
        return observers(
            self.name,
            [
                (EXECUTION_START, self.run_started),
                (BEFORE_STEP, self.step_started),
                (BEFORE_INFERENCE, self.model_started),
                (AFTER_INFERENCE, self.model_ended),
                (BEFORE_TOOL, self.tool_started),
                (AFTER_TOOL, self.tool_ended),
                (AFTER_STEP, self.step_ended),
                (EXECUTION_END, self.run_ended),
            ],
        )

    # -- hooks ------------------------------------------------------------------------
    def run_started(self, event: RunEvent) -> None:
        self._open(event.run, resumed=False)

    def step_started(self, event: StepEvent) -> None:
        spans = self._spans(event.run)
        spans.step = self._child(spans.run, "step", {"hookagent.step": event.step})

    def model_started(self, event: InferenceEvent) -> None:
        spans = self._spans(event.run)
        spans.model = self._child(spans.step or spans.run, "model", {"hookagent.step": event.step})

    def model_ended(self, event: InferenceResultEvent) -> None:
        spans = self._spans(event.run)
        if spans.model is None:
            return
        usage = event.response.usage
        spans.model.set_attributes(
            {
                "gen_ai.response.model": event.response.model_name or "",
                "gen_ai.usage.input_tokens": usage.input_tokens,
                "gen_ai.usage.output_tokens": usage.output_tokens,
                "hookagent.attempt": event.attempt,
            }
        )
        spans.model.end()
        spans.model = None

    def tool_started(self, event: ToolCallEvent) -> None:
        spans = self._spans(event.run)
        attributes = {"hookagent.tool": event.tool_name, "hookagent.call_id": event.call_id}
        span = self._child(spans.step or spans.run, "tool", attributes)
        # A subagent started by this call runs in this context: its run span nests here.
        token = self._context.attach(self._trace.set_span_in_context(span))
        spans.tools[event.call_id] = (span, token)

    def tool_ended(self, event: ToolResultEvent) -> None:
        spans = self._spans(event.run)
        self._end_tool(spans, event.call_id, error=event.result.is_error)

    def step_ended(self, event: StepEndEvent) -> None:
        spans = self._spans(event.run)
        for call_id in list(spans.tools):  # blocked calls never reach after_tool
            self._end_tool(spans, call_id, error=True)
        if spans.model is not None:  # a model call that failed
            spans.model.end()
            spans.model = None
        self._report(spans, event.run.decisions, spans.step or spans.run)
        if spans.step is not None:
            spans.step.set_attribute("hookagent.step.kind", event.record.kind)
            spans.step.end()
            spans.step = None

    def run_ended(self, event: RunEvent) -> None:
        run = event.run
        spans = self._spans(run)
        del self._runs[run.run_id]
        self._report(spans, run.decisions, spans.run)
        spans.run.set_attributes(
            {
                "hookagent.status": run.status,
                "hookagent.stop_reason": run.stop_reason or "",
                "gen_ai.usage.input_tokens": run.usage.input_tokens,
                "gen_ai.usage.output_tokens": run.usage.output_tokens,
            }
        )
        if run.status == "failed":
            spans.run.set_status(self._trace.Status(self._trace.StatusCode.ERROR))
        spans.run.end()
        self._context.detach(spans.token)

    def finish_result(self, result: RunResult[Any], /) -> RunResult[Any]:
        """A run that returns without reaching execution_end (one paused at a question, to
        be taken up later, maybe elsewhere): its open spans end here, marked with its
        status, and are exported; nothing of it stays in this process."""
        spans = self._runs.pop(result.run_id, None)
        if spans is not None:
            self._report(spans, result.decisions, spans.step or spans.run)
            tools = [span for span, _ in spans.tools.values()]  # contexts go with its task
            for span in (*tools, spans.model, spans.step):
                if span is not None:
                    span.set_attribute("hookagent.paused", True)
                    span.end()
            spans.run.set_attribute("hookagent.status", result.status)
            spans.run.end()
        return result

    # -- helpers ----------------------------------------------------------------------
    def _open(self, run: RunView, *, resumed: bool) -> _Spans:
        """The run's span, current in its task from here on (a subagent's run nests in it).
        A run taken up again reports only the decisions it records from here."""
        attributes = {**_run_attributes(run), "hookagent.resumed": resumed}
        span = self.tracer.start_span(f"{PREFIX}.run", attributes=attributes)
        token = self._context.attach(self._trace.set_span_in_context(span))
        reported = len(run.decisions) if resumed else 0
        spans = self._runs[run.run_id] = _Spans(run=span, token=token, reported=reported)
        return spans

    def _spans(self, run: RunView) -> _Spans:
        """The run's open spans; a run seen first past its start was taken up again."""
        return self._runs.get(run.run_id) or self._open(run, resumed=True)

    def _child(self, parent: Any, kind: str, attributes: dict[str, Any]) -> Any:
        context = self._trace.set_span_in_context(parent)
        return self.tracer.start_span(f"{PREFIX}.{kind}", context=context, attributes=attributes)

    def _end_tool(self, spans: _Spans, call_id: str, *, error: bool) -> None:
        found = spans.tools.pop(call_id, None)
        if found is None:
            return
        span, token = found
        span.set_attribute("hookagent.tool.error", error)
        span.end()
        self._context.detach(token)

    def _report(self, spans: _Spans, decisions: Sequence[Decision], span: Any) -> None:
        """The decisions recorded since the last report, as events on `span`."""
        for decision in decisions[spans.reported :]:
            attributes = {
                "hookagent.point": decision.point,
                "hookagent.outcome": decision.outcome,
                "hookagent.hook": decision.hook or "",
                "hookagent.reason": decision.reason or "",
                "hookagent.call_id": decision.call_id or "",
            }
            span.add_event(f"{PREFIX}.decision", attributes=attributes)
        spans.reported = len(decisions)


def _run_attributes(run: RunView) -> dict[str, Any]:
    return {
        "hookagent.run_id": run.run_id,
        "hookagent.agent_type": run.agent_type,
        "hookagent.parent_run_id": run.parent_run_id or "",
    }

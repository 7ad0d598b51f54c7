"""`StructuredOutput`: a run that must end in a validated object.

Two ways to get the object, chosen per model:

- **native** — the request carries the JSON schema (`ModelRequest.output`) for drivers whose
  provider constrains the reply to it (OpenAI Chat Completions and Responses); a stop hook
  validates the final text.
- **tool** — a final-answer tool whose arguments are the answer (any model that calls tools);
  a should_continue hook ends the run once the tool accepted an answer.

Either way a wrong answer goes back to the model with the validation errors, at most
`max_retries` times; then the run stops with `retry_limit`. The accepted value is kept, as
JSON data, in the run's metadata under `STRUCTURED_OUTPUT`, and `RunResult.parsed` holds it
as the output type.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, TypeVar, cast, final

from hookagent._errors import ConfigError, check_choice
from hookagent.capabilities.structured_output._final_tool import FinalAnswerTool
from hookagent.capabilities.structured_output._schema import OutputSchema, describe_errors
from hookagent.hooks._events import ContinueEvent, InferenceEvent, StopEvent, ToolResultEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import AFTER_TOOL, BEFORE_INFERENCE, SHOULD_CONTINUE, STOP
from hookagent.hooks._result import HookResult
from hookagent.kernel._metadata import MetadataKey
from hookagent.kernel._result import RunResult
from hookagent.tools._base import Tool

if TYPE_CHECKING:
    from hookagent._agent import Agent

__all__ = ["STRUCTURED_OUTPUT", "OutputMode", "StructuredOutput"]

T = TypeVar("T")
OutputMode = Literal["auto", "native", "tool"]

STRUCTURED_OUTPUT: Final = MetadataKey[Any]("structured_output")
"""The accepted answer, as JSON data."""
_FAILURES: Final = MetadataKey[int]("structured_output.failures", default=0)


@final
class StructuredOutput(Generic[T]):
    name = "structured_output"

    def __init__(
        self,
        output_type: type[T],
        *,
        mode: OutputMode = "auto",
        max_retries: int = 3,
        tool_name: str = "final_result",
        schema_name: str | None = None,
    ) -> None:
        check_choice(mode, ("auto", "native", "tool"), key="StructuredOutput(mode)")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigError(
                f"must be a whole number >= 0, not {max_retries!r}",
                key="StructuredOutput(max_retries)",
                value=max_retries,
            )
        try:
            self.schema = OutputSchema(output_type, name=schema_name)
        except Exception as exc:  # pydantic cannot build a schema for this type
            raise ConfigError(
                f"cannot build a JSON schema for {output_type!r}: {exc}",
                key="output_type",
            ) from exc
        self.mode = mode
        self.native = mode == "native"
        self.max_retries = max_retries
        self.tool = FinalAnswerTool(self.schema, tool_name)

    def bind(self, agent: Agent, /) -> None:
        """In `auto` mode, use the model's native JSON-schema mode if its driver has one.
        An agent has one structured output: a second is a `ConfigError`."""
        if any(isinstance(f, StructuredOutput) and f is not self for f in agent.finishers):
            raise ConfigError("an agent has one structured output", key="with_")
        if self.mode == "auto":
            self.native = bool(getattr(agent.model, "native_output", False))

    def finish_result(self, result: RunResult[Any], /) -> RunResult[T]:
        """The result with `parsed` filled in, and `output` the answer's JSON text if the run
        ended through the final-answer tool."""
        data = result.state.metadata.get(STRUCTURED_OUTPUT.name)
        if data is None:
            return cast("RunResult[T]", result)
        output = result.output or json.dumps(data, ensure_ascii=False)
        return cast("RunResult[T]", replace(result, parsed=self.schema.load(data), output=output))

    # -- capability -------------------------------------------------------------------
    def tools(self) -> Iterable[Tool]:
        yield self.tool

    def hooks(self) -> Iterable[Hook[Any]]:
        common: dict[str, Any] = {
            "source": self.name,
            "timeout": None,
            "quiet": True,
            "inherit": "none",  # the parent's answer, not a subagent's
        }
        yield make_hook(BEFORE_INFERENCE, self.shape_request, name="request", **common)
        yield make_hook(
            AFTER_TOOL, self.record_answer, name="answer", match=self.tool.name, **common
        )
        yield make_hook(SHOULD_CONTINUE, self.finish_on_answer, name="finish", **common)
        yield make_hook(STOP, self.check_final_text, name="validate", **common)

    # -- hooks ------------------------------------------------------------------------
    def shape_request(self, event: InferenceEvent) -> HookResult | None:
        """Native mode: the schema rides on the request and the answer tool is not offered."""
        if not self.native:
            return None
        request = event.request
        tools = tuple(spec for spec in request.tools if spec.name != self.tool.name)
        return HookResult.modify(request=replace(request, output=self.schema.spec(), tools=tools))

    def record_answer(self, event: ToolResultEvent) -> HookResult | None:
        if not event.result.is_error:
            return STRUCTURED_OUTPUT.set(event.result.data)
        return self._failed(event.run.metadata, "the final-answer tool rejected the answer")

    def finish_on_answer(self, event: ContinueEvent) -> HookResult | None:
        last = event.run.last_step
        if STRUCTURED_OUTPUT.name not in event.run.metadata or last is None:
            return None
        answered = any(e.name == self.tool.name and not e.result.is_error for e in last.executions)
        if not answered:
            return None
        return HookResult.stop(
            f"the final answer was given through {self.tool.name}", stop_reason="completed"
        )

    def check_final_text(self, event: StopEvent) -> HookResult | None:
        metadata = event.run.metadata
        if STRUCTURED_OUTPUT.name in metadata:
            return self._output(metadata[STRUCTURED_OUTPUT.name], event)
        text = event.output or ""
        if not self.native:
            return self._retry(
                metadata,
                f"Give your final answer by calling the {self.tool.name} tool; "
                "a reply in plain text is not accepted.",
            )
        try:
            value = self.schema.validate_text(text)
        except ValueError as exc:  # JSONDecodeError and ValidationError are ValueErrors
            return self._retry(
                metadata,
                f"Your final answer must be JSON matching the {self.schema.name} schema. "
                f"Problems:\n{describe_errors(exc)}\nReply again with only the corrected JSON.",
            )
        return STRUCTURED_OUTPUT.set(self.schema.dump(value))

    # -- helpers ----------------------------------------------------------------------
    def _output(self, data: Any, event: StopEvent) -> HookResult | None:
        if event.output:
            return None
        return HookResult.modify(output=json.dumps(data, ensure_ascii=False))

    def _retry(self, metadata: Any, feedback: str) -> HookResult:
        failures = int(metadata.get(_FAILURES.name, 0)) + 1
        if failures > self.max_retries:
            return HookResult.stop(
                f"no valid {self.schema.name} answer after {self.max_retries} retries",
                stop_reason="retry_limit",
            )
        return HookResult.block(feedback).with_changes(metadata={_FAILURES.name: failures})

    def _failed(self, metadata: Any, what: str) -> HookResult | None:
        failures = int(metadata.get(_FAILURES.name, 0)) + 1
        if failures > self.max_retries:
            return HookResult.stop(
                f"{what} {failures} times (max_retries={self.max_retries})",
                stop_reason="retry_limit",
            )
        return _FAILURES.set(failures)

"""Chat Completions chunks → one `ModelResponse`, reporting deltas as they arrive.

A streamed reply comes as chunks: text fragments, tool calls split by `index` (the first
fragment of a call carries its id and name, later ones pieces of its JSON arguments), a
finish reason, and with `stream_options.include_usage` a last chunk holding only the usage.
Compatible servers add their reasoning text as `reasoning_content` (vLLM, DeepSeek) or
`reasoning` (OpenRouter, Ollama).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, final

from hookagent._messages import AssistantMessage
from hookagent._usage import Usage
from hookagent.models._base import ModelResponse, OnDelta, ReasoningDelta, TextDelta, ToolCallDelta
from hookagent.models._tool_args import parse_call

__all__ = ["ChunkAssembler", "reasoning_of", "usage_of"]


def usage_of(usage: Any) -> Usage:
    if usage is None:
        return Usage(requests=1)
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(
        input_tokens=usage.prompt_tokens or 0,
        output_tokens=usage.completion_tokens or 0,
        cached_tokens=getattr(details, "cached_tokens", None) or 0,
        requests=1,
    )


def reasoning_of(message: Any) -> str:
    """The reasoning text a compatible server put beside the content, if any."""
    for field in ("reasoning_content", "reasoning"):
        value = getattr(message, field, None)
        if isinstance(value, str) and value:
            return value
    return ""


@final
class _PendingCall:
    __slots__ = ("arguments", "id", "name")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name = ""
        self.arguments: list[str] = []


@final
class ChunkAssembler:
    """Collects one streamed reply; `add` each chunk, then take `response`."""

    def __init__(self, step: int, on_delta: OnDelta) -> None:
        self.step = step
        self.on_delta = on_delta
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, _PendingCall] = {}
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.model: str | None = None

    def add(self, chunk: Any) -> None:
        self.model = chunk.model or self.model
        if chunk.usage is not None:
            self.usage = chunk.usage
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            self._delta(choice.delta)
            if choice.finish_reason is not None:
                self.finish_reason = choice.finish_reason

    def _delta(self, delta: Any) -> None:
        if delta is None:
            return
        reasoning = reasoning_of(delta)
        if reasoning:
            self.reasoning.append(reasoning)
            self.on_delta(ReasoningDelta(self.step, reasoning))
        if delta.content:
            self.text.append(delta.content)
            self.on_delta(TextDelta(self.step, delta.content))
        for raw in delta.tool_calls or ():
            index = raw.index if raw.index is not None else len(self.calls)
            call = self.calls.get(index)
            function = raw.function
            name = (function.name if function else None) or ""
            if call is None:
                call = self.calls[index] = _PendingCall()
                self.on_delta(ToolCallDelta(self.step, index, raw.id or None, name or None, ""))
            call.id = call.id or raw.id or None
            call.name = call.name or name  # a server that repeats the name sends it whole
            fragment = (function.arguments if function else None) or ""
            if fragment:
                call.arguments.append(fragment)
                self.on_delta(ToolCallDelta(self.step, index, None, None, fragment))

    def response(self, model: str, fallback_id: Callable[[int, int], str]) -> ModelResponse:
        calls = tuple(
            parse_call(
                call.id or fallback_id(self.step, position),
                call.name,
                "".join(call.arguments),
            )
            for position, (_, call) in enumerate(sorted(self.calls.items()))
        )
        return ModelResponse(
            message=AssistantMessage(
                content="".join(self.text), tool_calls=calls, reasoning="".join(self.reasoning)
            ),
            usage=usage_of(self.usage),
            finish_reason=self.finish_reason,
            model_name=self.model or model,
        )

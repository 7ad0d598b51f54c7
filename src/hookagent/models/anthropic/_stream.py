"""Anthropic streaming events → one `Message`, reporting deltas as they arrive.

The stream opens with `message_start` (model, input usage), then per content block a
`content_block_start`, its deltas (text, partial tool-input JSON, thinking, signature) and a
`content_block_stop`, then `message_delta` with the stop reason and output usage. The
assembled message goes through the same code as a non-streamed reply.
"""

from __future__ import annotations

from typing import Any, final

from anthropic.types import Message as WireMessage
from anthropic.types import RedactedThinkingBlock, TextBlock, ThinkingBlock, ToolUseBlock
from anthropic.types import Usage as WireUsage

from hookagent.models._base import OnDelta, ReasoningDelta, TextDelta, ToolCallDelta
from hookagent.models._tool_args import decode

__all__ = ["StreamAssembler"]


@final
class _Block:
    __slots__ = ("data", "kind", "parts", "signature", "tool_index")

    def __init__(self, kind: str, data: Any, tool_index: int) -> None:
        self.kind = kind
        self.data = data
        self.parts: list[str] = []
        self.signature = ""
        self.tool_index = tool_index


@final
class StreamAssembler:
    """Feed each raw event to `add`; `message()` once the stream is over."""

    def __init__(self, step: int, on_delta: OnDelta) -> None:
        self.step = step
        self.on_delta = on_delta
        self.blocks: dict[int, _Block] = {}
        self.tools = 0
        self.model = ""
        self.usage: dict[str, Any] = {}
        self.stop_reason: str | None = None
        self.started = False

    def add(self, event: Any) -> None:
        kind = event.type
        if kind == "message_start":
            self.started = True
            self.model = event.message.model
            self.usage = event.message.usage.model_dump(exclude_none=True)
        elif kind == "content_block_start":
            self._start(event.index, event.content_block)
        elif kind == "content_block_delta":
            self._delta(event.index, event.delta)
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason or self.stop_reason
            self.usage.update(event.usage.model_dump(exclude_none=True))

    def _start(self, index: int, block: Any) -> None:
        tool_index = -1
        if block.type == "tool_use":
            tool_index, self.tools = self.tools, self.tools + 1
            self.on_delta(ToolCallDelta(self.step, tool_index, block.id, block.name, ""))
        self.blocks[index] = _Block(block.type, block, tool_index)
        text = getattr(block, "text", None) or getattr(block, "thinking", None)
        if text:  # a start block may already hold some text
            self._delta(index, block)

    def _delta(self, index: int, delta: Any) -> None:
        block = self.blocks.get(index)
        if block is None:
            return
        kind = delta.type
        if kind in ("text_delta", "text"):
            block.parts.append(delta.text)
            self.on_delta(TextDelta(self.step, delta.text))
        elif kind in ("thinking_delta", "thinking"):
            block.parts.append(delta.thinking)
            self.on_delta(ReasoningDelta(self.step, delta.thinking))
        elif kind == "signature_delta":
            block.signature += delta.signature
        elif kind == "input_json_delta" and delta.partial_json:
            block.parts.append(delta.partial_json)
            self.on_delta(
                ToolCallDelta(self.step, block.tool_index, None, None, delta.partial_json)
            )

    def message(self) -> WireMessage:
        content = [self._finish(self.blocks[i]) for i in sorted(self.blocks)]
        return WireMessage.model_construct(
            id="",
            type="message",
            role="assistant",
            model=self.model,
            content=[c for c in content if c is not None],
            stop_reason=self.stop_reason,
            stop_sequence=None,
            usage=WireUsage.model_construct(**self.usage),
        )

    @staticmethod
    def _finish(block: _Block) -> Any:
        text = "".join(block.parts)
        data = block.data
        if block.kind == "text":
            return TextBlock.model_construct(type="text", text=text, citations=None)
        if block.kind == "thinking":
            signature = block.signature or getattr(data, "signature", "") or ""
            return ThinkingBlock.model_construct(
                type="thinking", thinking=text, signature=signature
            )
        if block.kind == "redacted_thinking":
            return RedactedThinkingBlock.model_construct(type="redacted_thinking", data=data.data)
        if block.kind == "tool_use":
            raw: object = text  # text that does not parse: the driver reports a parse error
            if not text.strip():
                raw = dict(data.input or {})
            elif isinstance(decoded := decode(text), dict):
                raw = decoded
            return ToolUseBlock.model_construct(
                type="tool_use", id=data.id, name=data.name, input=raw
            )
        return None  # server tools and other blocks hookagent does not model

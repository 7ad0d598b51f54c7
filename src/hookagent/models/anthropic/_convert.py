"""Neutral messages → Anthropic Messages wire format, incrementally.

The converter keeps the wire messages it built for the previous request and converts only
what was appended since (it rebuilds from scratch if the history shrank or a position now
holds a different message, e.g. after compaction). Anthropic requires user and assistant turns
to alternate, so consecutive messages of one role are merged: the tool results of one
assistant turn, and any reminder after them, form one user message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, final

from hookagent._messages import Message, SystemMessage, ToolCall, ToolResultMessage, UserMessage
from hookagent.models._base import ToolSpec
from hookagent.models._incremental import Incremental

__all__ = ["Block", "Converter", "tool_param"]

Block = dict[str, Any]


@final
class Converter(Incremental):
    """Neutral messages → Anthropic `system` text and alternating wire messages."""

    def convert(self, messages: Sequence[Message]) -> tuple[list[str], list[Block]]:
        self.update(messages)
        return self.system, self.wire

    def _restart(self) -> None:
        self.system: list[str] = []
        self.wire: list[Block] = []

    def _append(self, message: Message) -> None:
        if isinstance(message, SystemMessage):
            self.system.append(message.content)
            return
        if isinstance(message, UserMessage):
            self._add("user", [{"type": "text", "text": message.content}])
        elif isinstance(message, ToolResultMessage):
            self._add("user", [_tool_result(message)])
        else:
            self._add("assistant", self.reply(message, _text_block, _tool_use))

    def _add(self, role: str, blocks: list[Block]) -> None:
        if not blocks:
            return  # an empty assistant turn: Anthropic rejects empty content
        if self.wire and self.wire[-1]["role"] == role:
            self.wire[-1]["content"].extend(blocks)
        else:
            self.wire.append({"role": role, "content": blocks})


def _text_block(text: str) -> Block:
    return {"type": "text", "text": text}


def _tool_use(call: ToolCall) -> Block:
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": dict(call.args)}


def _tool_result(message: ToolResultMessage) -> Block:
    block: Block = {"type": "tool_result", "tool_use_id": message.call_id}
    block["content"] = message.content
    if message.images:  # text and images as content blocks
        text = [{"type": "text", "text": message.content}] if message.content else []
        block["content"] = text + [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": image.mime_type, "data": image.data},
            }
            for image in message.images
        ]
    if message.is_error:
        block["is_error"] = True
    return block


def tool_param(spec: ToolSpec) -> Block:
    return {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}

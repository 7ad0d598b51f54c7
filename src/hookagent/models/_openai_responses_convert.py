"""Neutral messages ↔ OpenAI Responses API items.

Requests: the converter keeps the input items it built for the previous request and converts
only the messages appended since (it rebuilds from scratch if the history shrank or a position
now holds a different message, e.g. after compaction). A reply that carried `reasoning` items
is remembered by its exact `AssistantMessage` object and sent back verbatim (reasoning,
message and function_call items in their original order) for as long as that object stays in
the history; a message someone replaced is converted from its neutral form.

Replies: `read_response` turns a final `Response` into a `ModelResponse` for both the plain
and the streamed path.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, final

from hookagent._messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from hookagent._usage import Usage
from hookagent.models._base import ModelResponse, OutputSpec, ToolSpec
from hookagent.models._incremental import Incremental
from hookagent.models._tool_args import parse_call

__all__ = ["Converter", "Item", "read_response", "text_format", "tool_param"]

Item = dict[str, Any]


@final
class Converter(Incremental):
    """Neutral messages → Responses `input` items, incrementally."""

    def convert(self, messages: Sequence[Message]) -> list[Item]:
        self.update(messages)
        return list(self.items)

    def _restart(self) -> None:
        self.items: list[Item] = []

    def _append(self, message: Message) -> None:
        self.items.extend(self._items(message))

    def _items(self, message: Message) -> list[Item]:
        if isinstance(message, UserMessage | SystemMessage):
            return [{"role": message.role, "content": message.content}]
        if isinstance(message, ToolResultMessage):
            return [
                {
                    "type": "function_call_output",
                    "call_id": message.call_id,
                    "output": tool_output(message),
                }
            ]
        return self.reply(message, _assistant_text, _function_call)


def _assistant_text(text: str) -> Item:
    return {"role": "assistant", "content": text}


def _function_call(call: ToolCall) -> Item:
    arguments = json.dumps(dict(call.args))
    return {"type": "function_call", "call_id": call.id, "name": call.name, "arguments": arguments}


def tool_output(message: ToolResultMessage) -> str | list[Item]:
    """The Responses API has no error flag on a tool's output, so a failure says so in text;
    images make the output a list of `input_text` and `input_image` parts."""
    text = message.content
    if message.is_error and not text.lstrip().lower().startswith("error"):
        text = f"Error: {text}"
    if not message.images:
        return text
    parts: list[Item] = [{"type": "input_text", "text": text}] if text else []
    parts.extend({"type": "input_image", "image_url": i.data_url()} for i in message.images)
    return parts


def tool_param(spec: ToolSpec) -> Item:
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": dict(spec.parameters),
        "strict": False,
    }


def text_format(spec: OutputSpec) -> Item:
    fmt: Item = {
        "type": "json_schema",
        "name": spec.name,
        "schema": dict(spec.schema),
        "strict": spec.strict,
    }
    if spec.description:
        fmt["description"] = spec.description
    return fmt


def read_response(response: Any, model: str) -> tuple[ModelResponse, list[Item] | None]:
    """The reply, and its raw output items when they must be sent back verbatim (reasoning)."""
    texts: list[str] = []
    summaries: list[str] = []
    calls: list[ToolCall] = []
    reasoned = False
    output = list(getattr(response, "output", None) or ())
    for item in output:
        kind = getattr(item, "type", None)
        if kind == "message":
            for part in getattr(item, "content", None) or ():
                part_kind = getattr(part, "type", None)
                if part_kind == "output_text":
                    texts.append(part.text or "")
                elif part_kind == "refusal":
                    texts.append(part.refusal or "")
        elif kind == "function_call":
            calls.append(parse_call(item.call_id, item.name or "", item.arguments))
        elif kind == "reasoning":
            reasoned = True
            summaries.extend(_reasoning_text(item))
    status = getattr(response, "status", None)
    finish = status
    if status == "incomplete":
        details = getattr(response, "incomplete_details", None)
        finish = getattr(details, "reason", None) or status
    message = AssistantMessage(
        content="".join(texts), tool_calls=tuple(calls), reasoning="\n\n".join(summaries)
    )
    raw = [_dump(item) for item in output] if reasoned else None
    reply = ModelResponse(
        message=message,
        usage=_usage(getattr(response, "usage", None)),
        finish_reason="tool_calls" if calls else finish,
        model_name=getattr(response, "model", None) or model,
    )
    return reply, raw


def _reasoning_text(item: Any) -> list[str]:
    """Summary texts; a server that returns raw reasoning text instead gives that."""
    found = [s.text for s in getattr(item, "summary", None) or () if getattr(s, "text", "")]
    if not found:
        found = [c.text for c in getattr(item, "content", None) or () if getattr(c, "text", "")]
    return found


def _dump(item: Any) -> Item:
    dumped: Item = item.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage(requests=1)
    details = getattr(usage, "input_tokens_details", None)
    return Usage(
        input_tokens=getattr(usage, "input_tokens", None) or 0,
        output_tokens=getattr(usage, "output_tokens", None) or 0,
        cached_tokens=getattr(details, "cached_tokens", None) or 0,
        requests=1,
    )

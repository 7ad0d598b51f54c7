"""Token counts of messages: a protocol, and the default estimate.

The default needs no tokenizer, no network and no extra dependency, and gives the same number
on every machine: about four characters per token, rounded up, plus a small overhead per
message for the role and the separators a provider adds. It is an *estimate* — close for
English prose and code, low for text in scripts that tokenize densely (CJK, emoji). Pass a
`TokenCounter` of your own (e.g. over `tiktoken`) when the budgets must be exact.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final, Protocol, final, runtime_checkable

from hookagent._messages import AssistantMessage, Message, ToolResultMessage

__all__ = [
    "CHARS_PER_TOKEN",
    "PER_MESSAGE_TOKENS",
    "EstimatedTokens",
    "TokenCounter",
    "message_chars",
]

CHARS_PER_TOKEN: Final = 4
PER_MESSAGE_TOKENS: Final = 4
"""Tokens added to every message for its role and framing."""


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens one message takes in a request. Called once per message: a
    message's count is kept, never asked again (messages are immutable)."""

    def count(self, message: Message, /) -> int: ...


@final
class EstimatedTokens:
    """`ceil(characters / 4) + 4` per message: the text, tool-call names and JSON arguments,
    and tool results (visible reasoning is not counted: drivers do not send it back)."""

    __slots__ = ()

    def count(self, message: Message, /) -> int:
        return -(-message_chars(message) // CHARS_PER_TOKEN) + PER_MESSAGE_TOKENS

    def __repr__(self) -> str:
        return "EstimatedTokens()"


def message_chars(message: Message) -> int:
    """The characters of a message that a provider is sent."""
    size = len(message.content)
    if isinstance(message, AssistantMessage):
        for call in message.tool_calls:
            size += len(call.name) + len(_json(call.args))
    elif isinstance(message, ToolResultMessage):
        size += len(message.name)
    return size


def _json(args: Mapping[str, Any]) -> str:
    if not args:
        return "{}"
    return json.dumps(dict(args), ensure_ascii=False, default=str)

"""Provider-neutral conversation messages.

Drivers convert these to and from each provider's wire format; nothing else in the runtime
sees a provider's shapes. Every message is frozen, so the history can be shared by reference
with hooks and drivers without copying it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any, Final, Literal, TypeAlias

from hookagent._record import record
from hookagent._slots import filler

__all__ = [
    "AssistantMessage",
    "ImagePart",
    "Message",
    "SystemMessage",
    "ToolCall",
    "ToolResultMessage",
    "UserMessage",
    "tool_result_message",
]


@record
class ToolCall:
    """A model's request to run one tool."""

    id: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict[str, Any])
    parse_error: str | None = None
    """Why the arguments the model sent cannot go to a tool (not a JSON object, nested too
    deep, a lone surrogate...: see `hookagent.models._tool_args`); `args` is then empty."""


@record
class SystemMessage:
    content: str
    role: Literal["system"] = "system"


@record
class UserMessage:
    content: str
    role: Literal["user"] = "user"
    synthetic: bool = False
    """True for text the runtime added (hook context, stop-hook reasons), not the user's."""


@record
class AssistantMessage:
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    role: Literal["assistant"] = "assistant"
    reasoning: str = ""
    """The model's visible reasoning or thinking text, where the provider returns it."""


@record
class ImagePart:
    """An image in a tool's result (an MCP server's image content), base64-encoded."""

    mime_type: str
    data: str

    def placeholder(self) -> str:
        """What a model that does not accept images reads in its place."""
        size = len(self.data) * 3 // 4 - (len(self.data) - len(self.data.rstrip("=")))
        return (
            f"[image: {self.mime_type}, {size:,} bytes; "
            "not shown: this model does not accept images]"
        )

    def data_url(self) -> str:
        return f"data:{self.mime_type};base64,{self.data}"


@record
class ToolResultMessage:
    call_id: str
    name: str
    content: str
    is_error: bool = False
    role: Literal["tool"] = "tool"
    images: tuple[ImagePart, ...] = ()
    """Images the model sees beside `content`; only for models that accept images (a model
    that does not reads each image's placeholder in `content` instead)."""


tool_result_message: Final[Callable[..., ToolResultMessage]] = filler(
    ToolResultMessage, ("call_id", "name", "content", "is_error", "images"), {"role": "tool"}
)
"""`tool_result_message(call_id, name, content, is_error, images)`: the message the kernel
makes per tool call, filled through its slots (`filler`)."""

Message: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage
"""Tagged by `role`; pydantic picks the member by its literal `role` when loading."""

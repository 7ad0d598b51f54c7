"""What the kernel asks of a model, and what it gets back.

A driver implements `Model.request`; the kernel never sees a provider's wire format. The
request holds the history as a read-only view of the run's messages, so building it costs the
same at step 1 and at step 1,000.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, final, runtime_checkable

from hookagent.messages import AssistantMessage, Message
from hookagent.usage import Usage

__all__ = ["Model", "ModelRequest", "ModelResponse", "ToolSpec"]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """A tool as a model sees it: name, description and JSON schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRequest:
    messages: Sequence[Message]
    """The conversation so far (a view; drivers must not keep it past the call)."""
    tools: tuple[ToolSpec, ...] = ()
    system_prompt: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """Provider settings such as temperature or max_tokens."""
    step: int = 0


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponse:
    message: AssistantMessage
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    model_name: str | None = None


@runtime_checkable
class Model(Protocol):
    """A language model driver."""

    @property
    def name(self) -> str:
        """`provider:model`, as shown in records and errors."""
        ...

    async def request(self, request: ModelRequest, /) -> ModelResponse: ...

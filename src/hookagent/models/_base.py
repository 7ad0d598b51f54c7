"""What the kernel asks of a model, and what it gets back.

A driver implements `Model.request`; the kernel never sees a provider's wire format. The
request holds the history as a read-only view of the run's messages, so building it costs the
same at step 1 and at step 1,000.

A driver that can stream also implements `StreamingModel.stream`: it reports deltas through a
callback as they arrive and returns the same assembled `ModelResponse` that `request` would.
The kernel streams only when someone watches (`Agent.stream`, the CLI's live view).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, TypeAlias, runtime_checkable

from hookagent._messages import AssistantMessage, Message
from hookagent._record import record
from hookagent._slots import filler
from hookagent._usage import Usage

__all__ = [
    "Delta",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "OnDelta",
    "OutputSpec",
    "ReasoningDelta",
    "StreamingModel",
    "TextDelta",
    "ToolCallDelta",
    "ToolSpec",
    "model_request",
]


@record
class ToolSpec:
    """A tool as a model sees it: name, description and JSON schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@record
class OutputSpec:
    """A JSON schema the final answer must match, for drivers with a native JSON-schema mode
    (OpenAI's `response_format` / Responses `text.format`)."""

    name: str
    schema: Mapping[str, Any]
    strict: bool = False
    """Ask the provider to enforce the schema exactly (its schema rules must then hold)."""
    description: str = ""


@record
class ModelRequest:
    messages: Sequence[Message]
    """The conversation so far (a view; drivers must not keep it past the call)."""
    tools: tuple[ToolSpec, ...] = ()
    system_prompt: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """Provider settings such as temperature or max_tokens."""
    step: int = 0
    output: OutputSpec | None = None
    """Set when the run wants a structured final answer in the provider's native mode."""


model_request: Final[Callable[..., ModelRequest]] = filler(
    ModelRequest, ("messages", "tools", "system_prompt", "settings", "step"), {"output": None}
)
"""`model_request(messages, tools, system_prompt, settings, step)`: the request the kernel
makes per step, filled through its slots (`filler`)."""


@record
class ModelResponse:
    message: AssistantMessage
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    model_name: str | None = None


@dataclass(frozen=True, slots=True)
class _TextPiece:
    """A piece of streamed text at `step`: the two kinds differ only in what text it is."""

    step: int
    text: str


@record(kw_only=False)
class TextDelta(_TextPiece):
    """A piece of the answer's text, as the provider streamed it."""


@record(kw_only=False)
class ReasoningDelta(_TextPiece):
    """A piece of the model's visible reasoning or thinking text."""


@record(kw_only=False)
class ToolCallDelta:
    """A piece of a tool call: the first delta of a call carries its id and name, the rest
    carry fragments of its JSON arguments. `index` orders the calls of one reply."""

    step: int
    index: int
    call_id: str | None
    name: str | None
    arguments: str


Delta: TypeAlias = TextDelta | ReasoningDelta | ToolCallDelta
OnDelta: TypeAlias = Callable[[Delta], None]


@runtime_checkable
class Model(Protocol):
    """A language model driver."""

    @property
    def name(self) -> str:
        """`provider:model`, as shown in records and errors."""
        ...

    async def request(self, request: ModelRequest, /) -> ModelResponse: ...


@runtime_checkable
class StreamingModel(Model, Protocol):
    """A driver that can report its reply while it arrives."""

    async def stream(self, request: ModelRequest, on_delta: OnDelta, /) -> ModelResponse:
        """Call `on_delta` for each piece as it arrives; return the assembled response."""
        ...

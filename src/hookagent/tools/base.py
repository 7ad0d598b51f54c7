"""The tool protocol and the result every tool call produces.

A tool never decides the fate of a run: whatever happens inside it (bad arguments, an
exception, a block by a hook) becomes a `ToolResult` the model reads, unless an error policy
says otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, final, runtime_checkable

if TYPE_CHECKING:
    from hookagent.kernel.view import RunView
    from hookagent.messages import ToolCall

__all__ = ["PreparesArgs", "Tool", "ToolContext", "ToolResult"]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """What a tool call produced.

    `content` is what the model reads; `data` is the structured shape hooks see (for example
    Claude Code's `{stdout, stderr, interrupted}` for Bash). Either may be derived from the
    other.
    """

    content: str
    is_error: bool = False
    data: Any = None

    @classmethod
    def of(cls, value: object) -> ToolResult:
        """Wrap whatever a tool function returned."""
        if isinstance(value, ToolResult):
            return value
        if isinstance(value, str):
            return cls(content=value, data=value)
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = str(value)
        return cls(content=text, data=value)

    @classmethod
    def error(cls, message: str, *, data: Any = None) -> ToolResult:
        return cls(content=message, is_error=True, data=data)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolContext:
    """What a running tool may know about its run."""

    run: RunView
    call: ToolCall


@runtime_checkable
class Tool(Protocol):
    """Anything with a name, a description, an argument schema and an async call."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> Mapping[str, Any]:
        """JSON schema of the arguments object."""
        ...

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext, /) -> ToolResult:
        """Run with arguments already parsed from JSON (validation is the tool's job)."""
        ...


@runtime_checkable
class PreparesArgs(Protocol):
    """A tool that puts its arguments in canonical form before hooks see them (e.g. paths
    made absolute, as Claude Code sends them). Not a decision: nothing is recorded."""

    def prepare(self, args: Mapping[str, Any], /) -> Mapping[str, Any]: ...

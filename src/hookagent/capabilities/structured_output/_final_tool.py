"""The final-answer tool: for models with no native JSON-schema mode, the answer is the
arguments of one tool call, which the provider already constrains to a schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, TypeVar, final

from hookagent.capabilities.structured_output._schema import OutputSchema, describe_errors
from hookagent.tools._base import ToolContext, ToolResult

__all__ = ["FinalAnswerTool"]

T = TypeVar("T")

ACCEPTED = "Final answer accepted."


@final
class FinalAnswerTool(Generic[T]):
    inheritable = False
    """Subagents do not get it: the answer it takes is the parent's."""

    def __init__(self, schema: OutputSchema[T], name: str) -> None:
        self.schema = schema
        self.name = name
        what = f" ({schema.description})" if schema.description else ""
        self.description = (
            f"Give your final answer{what}. Call this once, when you are done; its arguments "
            "are the answer."
        )
        self.parameters: Mapping[str, Any] = schema.schema

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext, /) -> ToolResult:
        try:
            value = self.schema.validate_args(dict(args))
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            return ToolResult.error(
                f"The answer does not match the {self.schema.name} schema:\n"
                f"{describe_errors(exc)}\nCall {self.name} again with corrected arguments."
            )
        return ToolResult(content=ACCEPTED, data=self.schema.dump(value))

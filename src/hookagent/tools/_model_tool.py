"""`ModelTool`: a tool whose arguments are a pydantic model.

Built-in tools take Claude Code's input shapes, whose names are not always Python
identifiers (`Grep`'s `-i`); a model with aliases describes them exactly, produces the JSON
schema the model sees, and turns bad arguments into one error result naming every field.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from hookagent.tools._base import ToolContext, ToolResult

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["ModelTool"]

A = TypeVar("A", bound="BaseModel")


class ModelTool(ABC, Generic[A]):
    """Subclasses set `name`, `description`, `args_model` and implement `run`."""

    name: ClassVar[str]
    description: ClassVar[str]
    args_model: ClassVar[type[Any]]
    """A pydantic model; fields may carry aliases (the names the model and hooks use)."""

    @property
    def parameters(self) -> Mapping[str, Any]:
        schema: dict[str, Any] = self.args_model.model_json_schema(by_alias=True)
        schema.pop("title", None)
        return schema

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext, /) -> ToolResult:
        from pydantic import ValidationError

        try:
            parsed = self.args_model.model_validate(dict(args))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
                for err in exc.errors()
            )
            return ToolResult.error(f"Invalid arguments for tool {self.name!r}: {problems}")
        return await self.run(parsed, ctx)

    @abstractmethod
    async def run(self, args: A, ctx: ToolContext) -> ToolResult:
        """Do the work; expected failures are error results, not exceptions."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

"""`FileTool`: the base of the file tools, confined to a `Root` and run off the event loop."""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict

from hookagent._threads import in_thread
from hookagent.capabilities.files._paths import PathError, Root
from hookagent.tools._base import ToolContext, ToolResult
from hookagent.tools._model_tool import ModelTool

__all__ = ["Args", "FileTool"]

A = TypeVar("A", bound=BaseModel)


class Args(BaseModel):
    """Arguments of a file tool: Claude Code's field names, nothing else accepted."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class FileTool(ModelTool[A]):
    """Subclasses implement `execute`, a plain blocking function over the parsed arguments.

    It runs on a worker thread (`hookagent._threads`), so a large read or a search over a big
    tree does not stall the loop; a `PathError` (or any `OSError`) it raises becomes the
    error result the model reads.
    """

    path_arg: ClassVar[str] = "file_path"
    """The argument naming the path this tool works on."""

    def __init__(self, root: Root) -> None:
        self.root = root

    def prepare(self, args: Mapping[str, Any], /) -> Mapping[str, Any]:
        """A relative path made absolute under root, as Claude Code sends paths to hooks;
        anything odd is left for the tool to refuse with a clear error."""
        value = args.get(self.path_arg)
        if not isinstance(value, str) or not value or "\x00" in value or os.path.isabs(value):
            return args
        absolute = os.path.normpath(os.path.join(self.root.path, os.path.expanduser(value)))
        return {**args, self.path_arg: absolute}

    async def run(self, args: A, ctx: ToolContext) -> ToolResult:
        try:
            return await in_thread(self.execute, args, ctx)
        except PathError as exc:
            return ToolResult.error(str(exc))
        except OSError as exc:  # not foreseen by the tool, but still the model's to read
            where = getattr(args, "file_path", None) or getattr(args, "path", None) or "."
            return ToolResult.error(f"{self.name} {where}: {exc.strerror or exc}")

    @abstractmethod
    def execute(self, args: A, ctx: ToolContext, /) -> ToolResult:
        """Do the work; expected failures raise `PathError` (or return an error result)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, root={self.root.path!r})"

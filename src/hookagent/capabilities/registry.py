"""`ToolRegistry`: the `tools` tool, for discovering the agent's tools by name or keyword.

Discovery only: the tool reads the specs the run offers the model (`ToolContext.run
.tool_specs`) and adds nothing to what can be called. `allow` and `deny` are `fnmatch`
patterns over tool names deciding what discovery shows; a denied tool is as good as unknown
to `help`, and `deny` wins over `allow`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from typing import Any, Final, Literal

from pydantic import BaseModel, Field

from hookagent.hooks._decorators import HookProvider
from hookagent.models._base import ToolSpec
from hookagent.tools._base import Tool, ToolContext, ToolResult
from hookagent.tools._model_tool import ModelTool

__all__ = ["ToolRegistry", "ToolsTool", "summarize"]

SUMMARY_CHARS: Final = 120


class _ToolsArgs(BaseModel):
    action: Literal["list", "help", "search"] = Field(
        description="list: every tool; help: one tool's full description and parameters; "
        "search: tools whose name or description contains `query`."
    )
    tool: str | None = Field(default=None, description="For help: the tool's exact name.")
    query: str | None = Field(default=None, description="For search: text to look for.")
    limit: int = Field(default=20, ge=1, le=100, description="Most tools to return.")


class ToolsTool(ModelTool[_ToolsArgs]):
    """`tools{action: list|help|search, tool?, query?, limit}` over the run's tool specs."""

    name = "tools"
    description = (
        "Discover the tools available to you. action=list gives each tool's name and a "
        "summary; action=help with tool=<name> gives its full description and parameters; "
        "action=search with query=<text> finds tools by name or description."
    )
    args_model = _ToolsArgs

    def __init__(self, allow: Sequence[str] | None = None, deny: Sequence[str] = ()) -> None:
        self.allow = None if allow is None else tuple(allow)
        self.deny = tuple(deny)

    def shows(self, name: str) -> bool:
        """Whether discovery shows a tool: allowed (or no allow list) and not denied."""
        if any(fnmatchcase(name, pattern) for pattern in self.deny):
            return False
        return self.allow is None or any(fnmatchcase(name, pattern) for pattern in self.allow)

    async def run(self, args: _ToolsArgs, ctx: ToolContext) -> ToolResult:
        specs = [spec for spec in ctx.run.tool_specs if self.shows(spec.name)]
        if args.action == "help":
            return _help(specs, args.tool)
        if args.action == "search":
            if not (args.query or "").strip():
                return _failure("search needs a non-empty `query`.")
            needle = (args.query or "").strip().casefold()
            specs = [s for s in specs if needle in f"{s.name}\n{s.description}".casefold()]
        return _listing(specs, args.limit)


class ToolRegistry(HookProvider):
    """Brings the `tools` discovery tool; no hooks.

    Args:
        allow: `fnmatch` patterns of tool names discovery may show (`None`: all).
        deny: patterns of tool names it never shows; these win over `allow`.
    """

    name = "tool_registry"

    def __init__(self, allow: Iterable[str] | None = None, deny: Iterable[str] = ()) -> None:
        self._tool = ToolsTool(_patterns(allow) if allow is not None else None, _patterns(deny))

    def tools(self) -> tuple[Tool, ...]:
        return (self._tool,)


def _patterns(patterns: Iterable[str]) -> tuple[str, ...]:
    return (patterns,) if isinstance(patterns, str) else tuple(patterns)  # one, not its letters


def _listing(specs: Sequence[ToolSpec], limit: int) -> ToolResult:
    shown = [{"name": spec.name, "summary": summarize(spec.description)} for spec in specs[:limit]]
    return ToolResult.of(
        {"success": True, "count": len(shown), "total": len(specs), "tools": shown}
    )


def _help(specs: Sequence[ToolSpec], name: str | None) -> ToolResult:
    if not name:
        return _failure("help needs `tool`, the exact name of a tool.")
    for spec in specs:
        if spec.name == name:
            tool = {
                "name": spec.name,
                "description": spec.description,
                "parameters": dict(spec.parameters),
            }
            return ToolResult.of({"success": True, "tool": tool})
    close = difflib.get_close_matches(name, [spec.name for spec in specs], n=3)
    hint = f" Did you mean {', '.join(close)}?" if close else " Use action=search to find one."
    return _failure(f"Unknown tool {name!r}.{hint}")


def _failure(message: str) -> ToolResult:
    data: dict[str, Any] = {"success": False, "error": message}
    return ToolResult.error(message, data=data)


def summarize(description: str) -> str:
    """The first line of a description, cut to `SUMMARY_CHARS`."""
    line = next((part.strip() for part in description.splitlines() if part.strip()), "")
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1].rstrip() + "…"

"""A server's tool as a hookagent `Tool`, and a call's result as a `ToolResult`.

An `MCPTool` is an ordinary tool, so every call passes through `before_tool` and `after_tool`
under its name `mcp__<server>__<tool>`. The model reads the text of the result; hooks see
`data`: the structured content when the server sent some, else the content blocks as dicts in
their wire shape (`{"type": "image", "data": …, "mimeType": …}`).

A result longer than the agent's `max_result_chars` is saved to a file and the model reads a
preview, as for any tool; a server raises that limit for one tool, as Claude Code lets it,
with `_meta: {"anthropic/maxResultSizeChars": N}` in its `tools/list` entry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, final

from mcp import types

from hookagent.capabilities.mcp.client import CallFailed, ServerConnection
from hookagent.capabilities.mcp.config import tool_name
from hookagent.spill.results import INHERIT
from hookagent.tools.base import ToolContext, ToolResult

__all__ = ["MAX_RESULT_META", "MCPTool", "to_tool_result"]

MAX_RESULT_META = "anthropic/maxResultSizeChars"
"""The `_meta` key of a server's tool that sets how long a result the model reads whole."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class MCPTool:
    """One tool of one MCP server; calls go through the server's SDK session."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    server: str
    """The server's name as configured (before sanitising)."""
    remote_name: str
    """The tool's name on the server (before sanitising)."""
    connection: ServerConnection = field(repr=False, compare=False)
    max_result_chars: int | None = INHERIT
    """The server's `anthropic/maxResultSizeChars` for this tool, else the agent's limit."""

    @classmethod
    def of(cls, connection: ServerConnection, tool: types.Tool) -> MCPTool:
        declared = (tool.meta or {}).get(MAX_RESULT_META)
        valid = isinstance(declared, int) and not isinstance(declared, bool) and declared > 0
        return cls(
            name=tool_name(connection.name, tool.name),
            description=tool.description or tool.title or "",
            parameters=tool.input_schema,
            server=connection.name,
            remote_name=tool.name,
            connection=connection,
            max_result_chars=declared if valid else INHERIT,
        )

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext, /) -> ToolResult:
        try:
            result = await self.connection.call(self.remote_name, dict(args))
        except CallFailed as exc:
            return ToolResult.error(
                f"MCP server {self.server!r}, tool {self.remote_name!r}: {exc}",
                data={"server": self.server, "tool": self.remote_name, "error": str(exc)},
            )
        return to_tool_result(result)


def to_tool_result(result: types.CallToolResult) -> ToolResult:
    """The text for the model, the structured content (or the blocks) for hooks."""
    texts = [_text(block) for block in result.content]
    structured = result.structured_content
    if not texts and structured is not None:
        texts = [json.dumps(structured, ensure_ascii=False, default=str)]
    data = (
        structured
        if structured is not None
        else [
            block.model_dump(mode="json", by_alias=True, exclude_none=True)
            for block in result.content
        ]
    )
    return ToolResult(content="\n".join(texts), is_error=bool(result.is_error), data=data)


def _text(block: types.ContentBlock) -> str:
    """What the model reads for one block: text as is, a short placeholder for the rest."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent | types.AudioContent):
        return f"[{block.type}: {block.mime_type}, {len(block.data) * 3 // 4} bytes]"
    if isinstance(block, types.ResourceLink):
        return f"[resource link: {block.uri}]"
    resource = block.resource
    if isinstance(resource, types.TextResourceContents):
        return resource.text
    return f"[resource: {resource.uri}, {resource.mime_type or 'binary'}]"

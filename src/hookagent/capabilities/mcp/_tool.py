"""A server's tool as a hookagent `Tool`, and a call's result as a `ToolResult`.

An `MCPTool` is an ordinary tool, so every call passes through `before_tool` and `after_tool`
under its name `mcp__<server>__<tool>`. The model reads the text of the result; hooks see
`data`: the structured content when the server sent some, else the content blocks as dicts in
their wire shape (`{"type": "image", "data": …, "mimeType": …}`).

A result longer than the agent's `max_result_chars` is saved to a file and the model reads a
preview, as for any tool. As in Claude Code, `MAX_MCP_OUTPUT_TOKENS` in the environment (4
characters a token) sets that limit for MCP tools instead, and a server raises it for one
tool with `_meta: {"anthropic/maxResultSizeChars": N}` in its `tools/list` entry (at most
500,000). A result over 10,000 tokens is logged as a warning, as Claude Code warns of it.

Image content reaches the model as images (`ToolResult.images`) where the model accepts them,
else as a placeholder line naming its type and size.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import field
from typing import Any, Final

from mcp import types

from hookagent._errors import ConfigError
from hookagent._messages import ImagePart
from hookagent._record import record
from hookagent.capabilities.mcp._elicit import elicitation_handler
from hookagent.mcp_client._client import CallFailed, ServerConnection
from hookagent.mcp_client._config import tool_name
from hookagent.tools._base import INHERIT, ToolContext, ToolResult

__all__ = ["MAX_RESULT_META", "MCPTool", "output_token_limit", "to_tool_result"]

log = logging.getLogger("hookagent.mcp")

MAX_RESULT_META = "anthropic/maxResultSizeChars"
"""The `_meta` key of a server's tool that sets how long a result the model reads whole."""
MAX_DECLARED_CHARS: Final = 500_000
"""The most `anthropic/maxResultSizeChars` may ask for, as in Claude Code."""
WARN_TOKENS: Final = 10_000
"""Claude Code warns of MCP output over this many tokens."""
CHARS_PER_TOKEN: Final = 4


def output_token_limit(environ: Mapping[str, str] | None = None) -> int | None:
    """`MAX_MCP_OUTPUT_TOKENS` from the environment (None: not set); a `ConfigError` if bad."""
    raw = (os.environ if environ is None else environ).get("MAX_MCP_OUTPUT_TOKENS")
    if raw is None or not raw.strip():
        return None
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(
            f"must be a whole number of tokens >= 1, not {raw!r}", key="MAX_MCP_OUTPUT_TOKENS"
        )
    return value


@record
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
    """The server's `anthropic/maxResultSizeChars` for this tool, else `MAX_MCP_OUTPUT_TOKENS`
    in characters, else the agent's limit."""

    @classmethod
    def of(
        cls, connection: ServerConnection, tool: types.Tool, *, token_limit: int | None = None
    ) -> MCPTool:
        """`tool` of `connection`'s server; `token_limit`: `MAX_MCP_OUTPUT_TOKENS` if set."""
        declared = (tool.meta or {}).get(MAX_RESULT_META)
        limit: int | None = INHERIT if token_limit is None else token_limit * CHARS_PER_TOKEN
        if isinstance(declared, int) and not isinstance(declared, bool) and declared > 0:
            limit = min(declared, MAX_DECLARED_CHARS)
        return cls(
            name=tool_name(connection.name, tool.name),
            description=tool.description or tool.title or "",
            parameters=tool.input_schema,
            server=connection.name,
            remote_name=tool.name,
            connection=connection,
            max_result_chars=limit,
        )

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext, /) -> ToolResult:
        connection = self.connection
        # the server's requests for the user's input during this call go through this run
        connection.elicit = elicitation_handler(ctx.run, ctx.call.id, self.name)
        try:
            result = await connection.call(self.remote_name, dict(args))
        except CallFailed as exc:
            return ToolResult.error(
                f"MCP server {self.server!r}, tool {self.remote_name!r}: {exc}",
                data={"server": self.server, "tool": self.remote_name, "error": str(exc)},
            )
        converted = to_tool_result(result)
        if len(converted.content) > WARN_TOKENS * CHARS_PER_TOKEN:
            log.warning(
                "MCP tool %s returned about %d tokens (over %d)",
                self.name,
                len(converted.content) // CHARS_PER_TOKEN,
                WARN_TOKENS,
            )
        return converted


def to_tool_result(result: types.CallToolResult) -> ToolResult:
    """The text and images for the model, the structured content (or the blocks) for hooks."""
    images = tuple(
        ImagePart(mime_type=block.mime_type, data=block.data)
        for block in result.content
        if isinstance(block, types.ImageContent)
    )
    texts = [_text(block) for block in result.content if not isinstance(block, types.ImageContent)]
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
    return ToolResult(
        content="\n".join(texts), is_error=bool(result.is_error), data=data, images=images
    )


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

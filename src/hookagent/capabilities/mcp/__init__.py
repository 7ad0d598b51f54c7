"""MCP servers as a capability, through the official SDK (install `hookagent[mcp]`).

Each tool of each server becomes a hookagent tool named `mcp__<server>__<tool>` (names
sanitised to `[A-Za-z0-9_-]`), so Claude Code matchers such as `mcp__memory__.*` govern it
like any other tool. Connect before building the agent, since the builder collects tools then::

    from hookagent.capabilities.mcp import MCP, HttpServer, StdioServer

    servers = {
        "math": StdioServer(command="python", args=["math_server.py"]),
        "docs": HttpServer(url="https://example.com/mcp", headers={"Authorization": "Bearer …"}),
    }
    async with MCP(servers) as mcp:
        agent = AgentBuilder().model(model).with_(mcp).build()
        result = await agent.run("what is 2 + 3?")

`MCP.from_claude_config(".mcp.json")` reads Claude Code's project file instead, and
`claude_config.load_mcp_configs(paths, plugin_root=...)` any number of them as Claude Code does.

`MCP` and `MCPTool` are imported on first use (PEP 562): reading server configurations
(`config`, `claude_config`) does not load the SDK, which takes about a second.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent._lazy import attribute_loader
from hookagent.mcp_client._config import HttpServer, ServerConfig, SseServer, StdioServer

if TYPE_CHECKING:
    from hookagent.capabilities.mcp._capability import MCP
    from hookagent.capabilities.mcp._claude_config import load_claude_config, load_mcp_configs
    from hookagent.capabilities.mcp._tool import MCPTool

_LAZY = {
    "MCP": "hookagent.capabilities.mcp._capability",
    "load_claude_config": "hookagent.capabilities.mcp._claude_config",
    "load_mcp_configs": "hookagent.capabilities.mcp._claude_config",
    "MCPTool": "hookagent.capabilities.mcp._tool",
}

__all__ = [
    "HttpServer",
    "MCP",
    "MCPTool",
    "ServerConfig",
    "SseServer",
    "StdioServer",
    "load_claude_config",
    "load_mcp_configs",
]


__getattr__ = attribute_loader(__name__, _LAZY, globals())

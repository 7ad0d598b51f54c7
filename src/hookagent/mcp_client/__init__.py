"""Talking to MCP servers: their configurations, and connections to them through the
official SDK (imported on first connection). Used by the MCP capability, which offers a
server's tools to an agent, and by Claude Code `mcp_tool` handlers, which call one."""

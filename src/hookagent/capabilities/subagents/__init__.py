"""Subagents: child agents started by the `Agent` tool (see `capability`)."""

from hookagent.capabilities.subagents._capability import DEPTH, TOOL_NAME, AgentTool, Subagents
from hookagent.capabilities.subagents._specs import AgentRegistry, AgentSpec

__all__ = ["DEPTH", "TOOL_NAME", "AgentRegistry", "AgentSpec", "AgentTool", "Subagents"]

"""How hookagent runs Claude Code hooks where it may choose (CLAUDE_HOOKS.md §1.4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Literal

from hookagent._errors import ConfigError
from hookagent._record import record

if TYPE_CHECKING:
    from hookagent.claude._commands import Expansion
    from hookagent.claude._instructions import InstructionFile
    from hookagent.mcp_client._client import ServerConnection
    from hookagent.mcp_client._config import ServerConfig
    from hookagent.models._base import Model

__all__ = ["ClaudeHookOptions"]


@record
class ClaudeHookOptions:
    """Defaults follow Claude Code; each safer choice is one setting away."""

    project_dir: str = "."
    """`CLAUDE_PROJECT_DIR`, and where transcripts and env files go (under .hookagent/)."""
    cwd: str | None = None
    """The hooks' working directory and the stdin `cwd` (default: `project_dir`)."""
    on_failure_default: Literal["continue", "block"] = "continue"
    """For handlers without `onFailure`: Claude Code lets a failing or timed-out hook's action
    proceed; `"block"` makes them fail closed instead."""
    updated_input_conflict: Literal["last_configured", "deny"] = "last_configured"
    """Several PreToolUse hooks rewriting the input: the last in merge order wins, or the
    call is refused."""
    defer: Literal["ask"] = "ask"
    """`permissionDecision: "defer"`: ask hookagent's approval path (a durable store will
    add waiting for an outside decision)."""
    kill_grace_s: float = 2.0
    """Seconds between SIGTERM and SIGKILL for a hook that overran its timeout."""
    subagent_tool_name: Literal["Agent", "Task"] = "Agent"
    """The `tool_name` the subagent tool is sent under."""
    permission_mode: str = "default"
    prompt_model: Model | str | None = None
    """The small, fast model that answers `prompt` handlers without a `model` of their own
    (a `Model` or a `provider:model` name); None: the agent's own model."""
    mcp_servers: Mapping[str, ServerConfig | ServerConnection] = field(default_factory=dict)
    """The MCP servers `mcp_tool` handlers may call, by name; a handler naming another
    server is a `ConfigError` when the hooks load. A `ServerConnection` (`MCP.connection`)
    is called over while it is open, as Claude Code reuses the session's connection; a
    config gets a connection per call."""
    instructions: tuple[InstructionFile, ...] = ()
    """The project's instruction files, each told to InstructionsLoaded hooks at session
    start."""
    expansion: Expansion | None = None
    """The slash command the run's prompt was expanded from, told to UserPromptExpansion
    hooks."""
    setup: Literal["init", "maintenance"] | None = None
    """Setup hooks fire at the start of a new session's run, before SessionStart, with this
    `trigger` (Claude Code's `--init` and `--maintenance`); None: they do not fire."""

    def __post_init__(self) -> None:
        if self.on_failure_default not in ("continue", "block"):
            raise ConfigError(
                "must be continue or block", key="on_failure_default", value=self.on_failure_default
            )
        if self.updated_input_conflict not in ("last_configured", "deny"):
            raise ConfigError(
                "must be last_configured or deny",
                key="updated_input_conflict",
                value=self.updated_input_conflict,
            )
        if self.setup not in (None, "init", "maintenance"):
            raise ConfigError("must be init, maintenance or None", key="setup", value=self.setup)
        if not self.kill_grace_s >= 0:
            raise ConfigError(
                "must be a number of seconds >= 0", key="kill_grace_s", value=self.kill_grace_s
            )

    @property
    def working_dir(self) -> str:
        return self.cwd or self.project_dir

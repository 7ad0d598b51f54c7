"""The values the Claude Code hooks layer passes between its parts.

Settings files become `HandlerSpec`s; running one gives a `ProcessOutcome`; reading its
output for an event gives a `HandlerVerdict`; several verdicts merge into a `Combined`.
Each part is a small module with one job; these types are their contracts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from hookagent._record import record

__all__ = [
    "CLAUDE_EVENTS",
    "Combined",
    "Decision",
    "HandlerSpec",
    "HandlerVerdict",
    "LoadedSettings",
    "ProcessOutcome",
    "PROMPT_EVENTS",
    "RUN_TYPES",
    "SEPARATE_KINDS",
    "SourceKind",
    "SettingsSource",
    "Skipped",
    "TOOL_EVENTS",
]

SourceKind = Literal["managed", "user", "project", "local", "explicit", "plugin", "skill", "agent"]
"""Where handlers come from: settings files by level, a plugin's hooks file, or the front
matter of a skill or a subagent."""
Decision = Literal["allow", "deny", "ask", "defer", "block", "none"]
"""A handler's decision: PreToolUse/PermissionRequest speak allow/deny/ask/defer; events with
a top-level `decision` speak block; `none` is no opinion."""

CLAUDE_EVENTS: Final = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "PermissionRequest",
        "PermissionDenied",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "Stop",
        "StopFailure",
        "SubagentStart",
        "SubagentStop",
        "SessionStart",
        "SessionEnd",
        "Setup",
        "PreCompact",
        "PostCompact",
        "Notification",
        "MessageDisplay",
        "TaskCreated",
        "TaskCompleted",
        "TeammateIdle",
        "InstructionsLoaded",
        "ConfigChange",
        "CwdChanged",
        "DirectoryAdded",
        "FileChanged",
        "WorktreeCreate",
        "WorktreeRemove",
        "Elicitation",
        "ElicitationResult",
        "PreModelSwitch",
        "PostModelSwitch",
    }
)
"""Every event name Claude Code documents; handlers under any other name never run."""

RUN_TYPES: Final = frozenset({"command", "http", "mcp_tool", "prompt", "agent"})
"""Claude Code's handler types, all of which hookagent runs; another type is `Skipped`."""
PROMPT_EVENTS: Final = frozenset(
    {
        "PermissionDenied",
        "PermissionRequest",
        "PostToolBatch",
        "PostToolUse",
        "PostToolUseFailure",
        "PreToolUse",
        "Stop",
        "SubagentStop",
        "TaskCompleted",
        "TaskCreated",
        "TeammateIdle",
        "UserPromptExpansion",
        "UserPromptSubmit",
    }
)
"""The events where Claude Code runs prompt (and agent) handlers."""
TOOL_EVENTS: Final = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}
)
"""Events where the `if` permission-rule filter applies (elsewhere it never runs)."""
SEPARATE_KINDS: Final = frozenset({"plugin", "skill", "agent"})
"""Sources whose copy of a handler runs on its own: only settings files merge repeats."""


@record
class SettingsSource:
    """Where handlers came from."""

    path: str
    kind: SourceKind
    plugin_root: str | None = None
    """For plugin hooks: the plugin's folder (substituted for ${CLAUDE_PLUGIN_ROOT})."""


@record
class HandlerSpec:
    """One handler of one matcher group of one event, as configured."""

    event: str
    matcher: str | None
    """The group's matcher string as written (None when absent)."""
    type: str
    """command | http | mcp_tool | prompt | agent (`settings.RUN_TYPES` run; see `Skipped`)."""
    command: str | None = None
    args: tuple[str, ...] | None = None
    """Exec form: run `command` with these arguments, no shell."""
    timeout: float | None = None
    """Seconds, as configured; None means the event's default."""
    if_rule: str | None = None
    on_failure: Literal["continue", "block"] | None = None
    run_async: bool = False
    async_rewake: bool = False
    """Runs in the background (implies `run_async`); its exit 2 wakes the model."""
    rewake_message: str | None = None
    """asyncRewake: the line put before the hook's findings when they wake the model."""
    rewake_summary: str | None = None
    """asyncRewake: the one line the user is told when the findings wake the model."""
    once: bool = False
    """Skill front matter: removed after its first successful run in a session."""
    shell: str | None = None
    status_message: str | None = None
    url: str | None = None
    """http: where the event is POSTed."""
    headers: tuple[tuple[str, str], ...] = ()
    """http: header names and values as written (`$VAR` expanded when sent)."""
    allowed_env_vars: tuple[str, ...] = ()
    """http: the variables a header value may name; any other expands to ""."""
    prompt: str | None = None
    """prompt: what the model is asked (`$ARGUMENTS`: the event JSON)."""
    model: str | None = None
    """prompt: the model that answers, as configured."""
    continue_on_block: bool = False
    """prompt: `ok: false` on PreToolUse/PostToolUse feeds the reason back and the turn goes
    on, instead of ending it."""
    server: str | None = None
    """mcp_tool: the configured MCP server called."""
    tool: str | None = None
    """mcp_tool: the tool called."""
    tool_input: str | None = None
    """mcp_tool: the `input` object as JSON (`${path}` substituted when called); None: the
    event JSON is sent."""
    source: SettingsSource
    where: str
    """JSON path of the handler in its file, e.g. `hooks.PreToolUse[0].hooks[1]`."""

    @property
    def background(self) -> bool:
        """Whether the handler runs without the event waiting for it (`async`,
        `asyncRewake`)."""
        return self.run_async or self.async_rewake

    @property
    def label(self) -> str:
        """How records and errors name this handler."""
        return f"{self.source.path}:{self.where}"


@record
class Skipped:
    """Configured hooks hookagent would not run: a handler of a type it does not run, or an
    event it never fires (or does not know). A guard that is configured but never runs is a
    bypass, so loading settings with any of these is refused unless the user opts out."""

    source: SettingsSource
    key: str
    """JSON path: the handler's `type`, or `hooks.<Event>` for a whole event."""
    value: str
    """The handler type or the event name at fault."""
    message: str

    def __str__(self) -> str:
        return f"{self.source.path}, {self.key}: {self.message}"


@record
class LoadedSettings:
    handlers: tuple[HandlerSpec, ...] = ()
    """In merge order: managed, user, project, local, explicit (CLI) files, plugins; then
    file order. Duplicates (same command string in several settings files) removed."""
    warnings: tuple[str, ...] = ()
    """What hookagent runs as Claude Code would, noted (dead variables, `if` where it never
    applies, empty commands): file and key named."""
    skipped: tuple[Skipped, ...] = ()
    """Handlers and events hookagent would not run (see `Skipped`), in merge order."""
    files: tuple[str, ...] = ()
    """The files read, in merge order."""


@record
class ProcessOutcome:
    """What running one command handler produced."""

    exit_code: int | None
    """None when the process could not start or was killed for its timeout."""
    stdout: str = ""
    stderr: str = ""
    duration_ms: float = 0.0
    timed_out: bool = False
    error: str | None = None
    """Why it failed to start, or that it timed out; None otherwise."""
    stdout_file: str | None = None
    """The file holding the whole stdout, when it was longer than what was kept of it."""
    stderr_file: str | None = None
    """The same for stderr."""
    stdout_bytes: int = 0
    """Bytes the stream carried, all of them (`stdout` may hold only the first)."""
    stderr_bytes: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class _Answer:
    """What one handler's verdict and the merge of an event's verdicts both say."""

    decision: Decision = "none"
    reason: str | None = None
    """Why: the text that goes with a deny/block/ask (to the model or the user, per event)."""
    updated_input: Mapping[str, Any] | None = None
    updated_output: Any = None
    continue_: bool = True
    stop_reason: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """Event-specific fields (e.g. PermissionRequest `updatedPermissions`, `interrupt`;
    SessionStart `initialUserMessage`)."""


@record
class HandlerVerdict(_Answer):
    """One handler's answer, read per the protocol for its event."""

    additional_context: str | None = None
    system_message: str | None = None
    failed: bool = False
    """A failure in the sense of `onFailure`: could not start, timed out, exit code other
    than 0/2, invalid or schema-failing JSON."""
    error: str | None = None
    """What went wrong, for the user: a non-blocking error notice."""


@record
class Combined(_Answer):
    """The verdicts of every handler that ran for one event, merged."""

    additional_context: tuple[str, ...] = ()
    system_messages: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    """Notes on disagreements resolved by merge order (several `updatedInput`s)."""

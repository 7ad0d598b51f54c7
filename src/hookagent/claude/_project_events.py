"""InstructionsLoaded, UserPromptExpansion and Setup: Claude Code events about a project,
fired at hookagent points that already exist.

InstructionsLoaded fires at session_start, once for each instruction file the session
loaded (`ClaudeHookOptions.instructions`); UserPromptExpansion fires at user_prompt when the
prompt is the expansion of a slash command (`ClaudeHookOptions.expansion`), before
UserPromptSubmit; Setup fires at session_start, before SessionStart, on a new session's
run when the project is being set up (`ClaudeHookOptions.setup`). `occurrences` turns the
hookagent event into the Claude events to run handlers for; each carries the fields of its
payload.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookagent._record import record
from hookagent.hooks._events import PromptEvent

if TYPE_CHECKING:
    from hookagent.claude._commands import Expansion
    from hookagent.claude._instructions import InstructionFile
    from hookagent.claude._options import ClaudeHookOptions
    from hookagent.kernel._view import RunView

__all__ = ["ExpansionEvent", "InstructionsEvent", "SetupEvent", "occurrences"]


@record(kw_only=False)
class InstructionsEvent:
    run: RunView
    file: InstructionFile

    @property
    def load_reason(self) -> str:
        return self.file.load_reason

    def claude_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "file_path": self.file.path,
            "memory_type": self.file.memory_type,
            "load_reason": self.file.load_reason,
        }
        if self.file.globs:
            fields["globs"] = list(self.file.globs)
        if self.file.parent is not None:
            fields["parent_file_path"] = self.file.parent
        return fields


@record(kw_only=False)
class ExpansionEvent:
    run: RunView
    prompt: str
    expansion: Expansion

    @property
    def command_name(self) -> str:
        return self.expansion.command.name

    def claude_fields(self) -> dict[str, Any]:
        return self.expansion.payload()


@record(kw_only=False)
class SetupEvent:
    run: RunView
    trigger: str
    """init | maintenance."""

    def claude_fields(self) -> dict[str, Any]:
        return {"trigger": self.trigger}


def occurrences(event_name: str, event: Any, options: ClaudeHookOptions) -> list[Any]:
    """The events to run `event_name`'s handlers for when hookagent fires `event`."""
    if event_name == "InstructionsLoaded":
        return [InstructionsEvent(event.run, f) for f in options.instructions]
    if event_name == "UserPromptExpansion":
        expansion = options.expansion
        if (
            expansion is None
            or not isinstance(event, PromptEvent)
            or event.prompt != expansion.prompt
        ):
            return []
        return [ExpansionEvent(event.run, event.prompt, expansion)]
    if event_name == "Setup":
        if options.setup is None or getattr(event, "source", None) != "startup":
            return []
        return [SetupEvent(event.run, options.setup)]
    return [event]

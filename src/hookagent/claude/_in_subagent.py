"""Claude Code's hooks as a subagent runs.

Inside a subagent Claude Code fires the tool events (PreToolUse, PostToolUse…) of the
settings, with `agent_id` and `agent_type` in every event's JSON; the events of the session
and its turns (UserPromptSubmit, Stop, SessionStart…) are the main agent's alone: a
subagent's end is SubagentStop, fired in its parent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from hookagent.kernel._view import RunView

__all__ = ["MAIN_ONLY", "agent_fields", "fires_in"]

MAIN_ONLY: Final = frozenset(
    {
        "UserPromptSubmit",
        "UserPromptExpansion",
        "Stop",
        "StopFailure",
        "SessionStart",
        "SessionEnd",
        "Setup",
        "InstructionsLoaded",
    }
)
"""Events never fired inside a subagent."""


def fires_in(event_name: str, event: Any) -> bool:
    """Whether `event_name`'s hooks run for `event`: not a main-only event in a subagent."""
    in_child = bool(getattr(getattr(event, "run", None), "parent_run_id", None))
    return not (event_name in MAIN_ONLY and in_child)


def agent_fields(run: RunView) -> tuple[str | None, str | None]:
    """(`agent_id`, `agent_type`) for the events of `run`: set in a subagent, else None."""
    if run.parent_run_id is None:
        return None, None
    return run.run_id, run.agent_type

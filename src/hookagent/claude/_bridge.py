"""`ClaudeHooks`: settings-file handlers installed as hookagent hooks.

One hook per Claude Code event (and per tier: managed handlers go in the policy tier) runs
every handler whose matcher and `if` rule fit, all in parallel, and merges their answers
with Claude Code's rules (`event_handlers.EventHandlers`).

Settings holding hooks hookagent would not run are refused (`checks.SettingsReport.refuse`)
unless `allow_unsupported` is given; then the run records what was not run, at
execution_start, in its metadata under `claude_hooks_not_run`.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, final

from hookagent.claude._checks import check_servers, check_settings
from hookagent.claude._event_handlers import AfterOutcome, EventHandlers
from hookagent.claude._events import FIRED
from hookagent.claude._model import RUN_TYPES, LoadedSettings
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._prompt_hook import PromptModels
from hookagent.claude._selection import Selected, select_spec
from hookagent.claude._session import Sessions, session_hooks
from hookagent.hooks._events import RunEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import EXECUTION_START
from hookagent.hooks._result import HookResult
from hookagent.tools._base import Tool

if TYPE_CHECKING:
    from hookagent._agent import Agent
    from hookagent.claude._agent_hook import Checker

__all__ = ["NOT_RUN_KEY", "ClaudeHooks"]

NOT_RUN_KEY = "claude_hooks_not_run"
"""Run metadata: the configured hooks hookagent did not run, when the user allowed that."""

log = logging.getLogger("hookagent.claude")


@final
class ClaudeHooks:
    """A capability: Claude Code command hooks from settings files."""

    name = "claude"

    def __init__(
        self,
        settings: LoadedSettings,
        options: ClaudeHookOptions | None = None,
        *,
        allow_unsupported: bool = False,
        warn: Callable[[str], object] | None = None,
    ):
        """Every warning of `checks.check_settings` goes to `warn` (the `hookagent.claude`
        logger by default); then hooks hookagent would not run (a handler type other than
        `command`, an event it does not fire) are a `ConfigError`, unless `allow_unsupported`
        (they are warned about as not run, and recorded in each run)."""
        warn = warn or functools.partial(log.warning, "%s")
        self.settings = settings
        self.options = options or ClaudeHookOptions()
        self.report = check_settings(settings)
        for line in self.report.warnings:
            warn(line)
        check_servers(settings, self.options.mcp_servers)
        if not allow_unsupported:
            self.report.refuse()
        for skipped in self.report.skipped:
            warn(f"{skipped}; not run")
        self._sessions = Sessions(self.options)
        self._models = PromptModels(self.options.prompt_model, settings.handlers)

    def bind(self, agent: Agent, /) -> None:
        """The agent's own model answers prompt handlers that name no other; handlers naming
        a model alias (`haiku`…) run on the model the builder maps it to; `agent` handlers
        run agents of the agent's own kind (`Agent.checker`)."""
        self._models.bind(agent.model, agent.model_aliases, agent.checker)

    def use_checker(self, checker: Checker) -> None:
        """How `agent` handlers make their agent, where no agent binds these hooks (a
        `ToolGate`)."""
        self._models.checker = checker

    def tools(self) -> Iterable[Tool]:
        return ()

    def hooks(self) -> Iterable[Hook[Any]]:
        groups: dict[tuple[str, bool], list[Selected]] = {}
        for spec in self.settings.handlers:
            if spec.type in RUN_TYPES and spec.event in FIRED:
                key = (spec.event, spec.source.kind == "managed")
                groups.setdefault(key, []).append(select_spec(spec))
        for (event_name, managed), selected in groups.items():
            mapping = FIRED[event_name]
            runner = EventHandlers(
                event_name, mapping, tuple(selected), self.options, self._sessions, self._models
            )
            yield make_hook(
                mapping.point,
                AfterOutcome(runner) if mapping.last else runner,
                name=event_name,
                kind=mapping.kind,
                source="claude-managed" if managed else "claude",
                tier="audit" if mapping.last else "policy" if managed else "default",
                priority=1 if event_name == "Setup" else 0,  # Setup before SessionStart
                always=mapping.last,
                timeout=None,
            )
        if groups:
            background = any(s.spec.background for g in groups.values() for s in g)
            yield from session_hooks(self._sessions, "claude", background=background)
        if self.report.skipped:
            yield make_hook(
                EXECUTION_START,
                self._not_run,
                name="settings",
                source="claude",
                kind="transform",
                inherit="none",
                timeout=None,
            )

    def _not_run(self, event: RunEvent) -> HookResult:
        """Record in the run what the user allowed to go unrun."""
        lines = [str(s) for s in self.report.skipped]
        reason = f"{len(lines)} configured hook(s) not run (allowed): " + "; ".join(lines)
        return replace(HookResult.modify(metadata={NOT_RUN_KEY: lines}), reason=reason)

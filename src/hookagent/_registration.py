"""`HookRegistrations`: `on`, `hook` and `with_settings`, registered the same way on an
`AgentBuilder` and a `ToolGate`.

Both hosts take hooks from the same three calls with the same checks and errors; each keeps
the hooks its own way (`_add_hook`), may fire only some points (`_FIRES`) and decides what a
Claude Code settings capability becomes (`_add_settings`): an agent installs all of it, a
gate keeps the hooks of the events it fires.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from os import PathLike
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar, Unpack

from hookagent._errors import ConfigError
from hookagent.hooks._hook import Hook, HookFn, HookOptions, make_hook
from hookagent.hooks._points import HookPoint

if TYPE_CHECKING:
    from hookagent.claude._bridge import ClaudeHooks
    from hookagent.claude._options import ClaudeHookOptions

__all__ = ["HookRegistrations"]

E = TypeVar("E")


class HookRegistrations(ABC):
    """Hook registration for a host that keeps hooks."""

    _FIRES: ClassVar[tuple[HookPoint[Any], ...] | None] = None
    """The points the host fires; None: every point."""
    _HOST: ClassVar[str] = "an agent"

    def on(self, point: HookPoint[E], fn: HookFn, **options: Unpack[HookOptions]) -> Self:
        """Register `fn` at `point`; `options` as for `make_hook` (match, priority, tier,
        kind, timeout, on_failure, always, blocking, quiet, name). A `ToolGate` takes the
        points it fires: before_tool, after_tool, permission_request and notification."""
        self._check_point(point, "on")
        return self.hook(make_hook(point, fn, **options))

    def hook(self, hook: Hook[Any]) -> Self:
        """Register a hook built elsewhere (with `make_hook`, or a capability's `hooks()`)."""
        if not isinstance(hook, Hook):
            raise ConfigError(f"{hook!r} is not a hook (build one with make_hook)", key="hook")
        self._check_point(hook.point, f"hook {hook.id}")
        self._add_hook(hook)
        return self

    def with_settings(
        self,
        *files: str | PathLike[str],
        project_dir: str | PathLike[str] = ".",
        discover: bool = False,
        plugins: Iterable[str | PathLike[str]] = (),
        options: ClaudeHookOptions | None = None,
        allow_unsupported: bool = False,
    ) -> Self:
        """Run the Claude Code hooks of these settings files (command, http, prompt, agent).

        With `discover=True` the standard locations are read too (managed policy, the user's
        `~/.claude/settings.json`, the project's `.claude/settings.json` and
        `.claude/settings.local.json`), merged as Claude Code merges them; `plugins` are
        plugin folders whose `hooks/hooks.json` is read. An invalid file is a `ConfigError`
        naming the file and the JSON path, and so are hooks hookagent would not run (an
        `mcp_tool` handler, an event it does not fire) unless `allow_unsupported`:
        then they are logged as not run and each run records them in its metadata.

        A `ToolGate` runs those of PreToolUse, PostToolUse, PostToolUseFailure,
        PermissionRequest and Notification around every call; events of an agent's loop
        (Stop, UserPromptSubmit, SessionStart…) have nothing to fire them there and are left
        out. Call its `aclose()` (or `end(session)`) when done, so the transcript is flushed
        and `async` handlers are waited for.
        """
        from hookagent.claude._bridge import ClaudeHooks
        from hookagent.claude._options import ClaudeHookOptions as Options
        from hookagent.claude._sources import discover as find

        settings = find(project_dir, explicit=files, plugin_dirs=plugins, include_standard=discover)
        options = options or Options(project_dir=str(project_dir))
        self._add_settings(
            ClaudeHooks(settings, options, allow_unsupported=allow_unsupported), files
        )
        return self

    @abstractmethod
    def _add_hook(self, hook: Hook[Any]) -> None:
        """Keep `hook` (its point already checked)."""

    @abstractmethod
    def _add_settings(self, claude: ClaudeHooks, files: tuple[str | PathLike[str], ...]) -> None:
        """Take the hooks of a Claude Code settings capability (of `files`, as given)."""

    def _check_point(self, point: object, key: str) -> None:
        if not isinstance(point, HookPoint):
            raise ConfigError(
                f"{point!r} is not a hook point (use e.g. hookagent.BEFORE_TOOL)", key=key
            )
        fires = self._FIRES
        if fires is not None and point not in fires:
            names = ", ".join(p.name for p in fires)
            raise ConfigError(
                f"{self._HOST} fires only {names}; {point.name} belongs to an agent's loop",
                key=key,
                value=point.name,
            )

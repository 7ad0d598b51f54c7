"""Read one Claude Code settings file (or a plugin's `hooks/hooks.json`) into `HandlerSpec`s.

People point hookagent at the settings files they already have, so the loader accepts what
Claude Code accepts (unknown keys, unknown events, handler types hookagent does not run), while
a shape Claude Code would reject is a `ConfigError` naming the file and the JSON path. What
hookagent would not run (a handler type other than `command`, an event it never fires or does
not know) is listed as `Skipped`, for the caller to refuse; the rest is noted in warnings.
pydantic checks the shape here, at the edge, and nothing past this module sees it; this module
is imported only when settings are loaded, which keeps `import hookagent` light.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Final, Literal, final

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.claude._events import FIRED
from hookagent.claude._json_file import read_json
from hookagent.claude._model import (
    CLAUDE_EVENTS,
    PROMPT_EVENTS,
    RUN_TYPES,
    HandlerSpec,
    SettingsSource,
    Skipped,
    SourceKind,
)
from hookagent.claude._settings_shape import shape_error

__all__ = [
    "FileSettings",
    "HANDLER_TYPES",
    "IF_EVENTS",
    "PLUGIN_ROOT",
    "load_file",
    "parse_settings",
]

PLUGIN_ROOT: Final = "${CLAUDE_PLUGIN_ROOT}"
"""Replaced textually in a plugin's `command` and `args`; `$CLAUDE_PROJECT_DIR` is left to the
shell, as Claude Code does."""

HANDLER_TYPES: Final = RUN_TYPES
_NO_HTTP: Final = frozenset({"SessionStart", "Setup"})
"""Events where Claude Code runs only command and mcp_tool handlers."""
IF_EVENTS: Final = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}
)
"""Where Claude Code checks `if`; elsewhere a handler with `if` never runs (§4.1)."""
_IF_LIST: Final = ", ".join(sorted(IF_EVENTS))

# Variables old blog posts promise and no build sets (§5.2); they expand to "" in the shell.
_DEAD_VARS: Final = re.compile(
    r"\$\{?(CLAUDE_(?:TOOL_INPUT|TOOL_NAME|TOOL_OUTPUT|FILE_PATHS?|HOOK_INPUT|HOOK_EVENT"
    r"|EVENT_TYPE|MODEL|NOTIFICATION))\b"
)

_SETTINGS_KINDS: Final = frozenset({"managed", "user", "project", "local", "explicit"})
_NO_PLUGIN_ROOT: Final = (
    "uses ${CLAUDE_PLUGIN_ROOT}, which Claude Code sets only for a plugin's hooks: here it "
    "expands to nothing (give the plugin's folder with --claude-plugin)"
)


@record
class FileSettings:
    """What one file contributes before merging with the others."""

    source: SettingsSource
    handlers: tuple[HandlerSpec, ...] = ()
    disable_all_hooks: bool | None = None
    """None when the file does not set the key, so a lower level can still decide. As written:
    `merge` ignores it (with a warning) in a plugin's hooks file."""
    allow_managed_hooks_only: bool | None = None
    """As written: `merge` honours it only from managed files."""
    allowed_http_hook_urls: tuple[str, ...] | None = None
    """`allowedHttpHookUrls`: None when the file does not set it."""
    http_hook_allowed_env_vars: tuple[str, ...] | None = None
    """`httpHookAllowedEnvVars`: None when the file does not set it."""
    warnings: tuple[str, ...] = ()
    skipped: tuple[Skipped, ...] = ()


class _Handler(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    type: str
    command: str | None = None
    args: list[str] | None = None
    timeout: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None
    if_rule: str | None = Field(default=None, alias="if")
    on_failure: Literal["continue", "block"] | None = Field(default=None, alias="onFailure")
    run_async: bool = Field(default=False, alias="async")
    async_rewake: bool = Field(default=False, alias="asyncRewake")
    rewake_message: str | None = Field(default=None, alias="rewakeMessage")
    rewake_summary: str | None = Field(default=None, alias="rewakeSummary")
    once: bool = False
    shell: str | None = None
    status_message: str | None = Field(default=None, alias="statusMessage")
    url: str | None = None
    headers: dict[str, str] | None = None
    allowed_env_vars: list[str] | None = Field(default=None, alias="allowedEnvVars")
    prompt: str | None = None
    model: str | None = None
    continue_on_block: bool = Field(default=False, alias="continueOnBlock")
    server: str | None = None
    tool: str | None = None
    input: dict[str, Any] | None = None


class _Group(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    matcher: str | None = None
    hooks: list[_Handler]


class _File(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)

    hooks: dict[str, Any] | None = None
    disable_all_hooks: bool | None = Field(default=None, alias="disableAllHooks")
    allow_managed_hooks_only: bool | None = Field(default=None, alias="allowManagedHooksOnly")
    allowed_http_hook_urls: list[str] | None = Field(default=None, alias="allowedHttpHookUrls")
    http_hook_allowed_env_vars: list[str] | None = Field(
        default=None, alias="httpHookAllowedEnvVars"
    )


_GROUPS: Final = TypeAdapter(list[_Group])


def load_file(
    path: str | os.PathLike[str], kind: SourceKind, *, plugin_root: str | None = None
) -> FileSettings:
    """Read and check one file; a missing or unreadable file is a `ConfigError`.

    For `kind="plugin"` the plugin root defaults to the folder holding `hooks/hooks.json`.
    """
    name = os.fspath(path)
    if kind == "plugin" and plugin_root is None:
        plugin_root = str(Path(name).absolute().parent.parent)
    elif kind != "plugin" and plugin_root is not None:
        raise ConfigError(f"plugin_root only applies to plugin hooks, not {kind}", file=name)
    source = SettingsSource(path=name, kind=kind, plugin_root=plugin_root)
    return parse_settings(read_json(Path(name), name), source)


def parse_settings(data: object, source: SettingsSource) -> FileSettings:
    """Check decoded settings (a file's JSON, or a dict given in code) and build handlers."""
    try:
        top = _File.model_validate(data)
    except ValidationError as exc:
        raise shape_error(exc, data, "", source.path) from None
    notes = _Notes(source)
    handlers: list[HandlerSpec] = []
    for event, groups in (top.hooks or {}).items():
        if event not in CLAUDE_EVENTS:
            if groups:  # an empty list configures nothing
                notes.skip(f"hooks.{event}", event, _unknown_event(event, groups))
            continue
        found = list(_event_handlers(event, groups, source, notes))
        handlers += found
        if found and event not in FIRED:
            notes.skip(f"hooks.{event}", event, f"hookagent does not fire {event}")
    return FileSettings(
        source=source,
        handlers=tuple(handlers),
        disable_all_hooks=top.disable_all_hooks,
        allow_managed_hooks_only=top.allow_managed_hooks_only,
        allowed_http_hook_urls=_tuple(top.allowed_http_hook_urls),
        http_hook_allowed_env_vars=_tuple(top.http_hook_allowed_env_vars),
        warnings=tuple(notes.warnings),
        skipped=tuple(notes.skipped),
    )


@final
class _Notes:
    """What one file's reading found: warnings, and what hookagent would not run."""

    __slots__ = ("_source", "skipped", "warnings")

    def __init__(self, source: SettingsSource) -> None:
        self._source = source
        self.warnings: list[str] = []
        self.skipped: list[Skipped] = []

    def warn(self, key: str, message: str) -> None:
        self.warnings.append(f"{self._source.path}, {key}: {message}")

    def skip(self, key: str, value: str, message: str) -> None:
        self.skipped.append(Skipped(source=self._source, key=key, value=value, message=message))


def _event_handlers(
    event: str, raw: object, source: SettingsSource, notes: _Notes
) -> Iterator[HandlerSpec]:
    try:
        groups = _GROUPS.validate_python(raw)
    except ValidationError as exc:
        raise shape_error(exc, raw, f"hooks.{event}", source.path) from None
    for i, group in enumerate(groups):
        for j, handler in enumerate(group.hooks):
            where = f"hooks.{event}[{i}].hooks[{j}]"
            if spec := _spec(event, group.matcher, handler, source, where, notes):
                yield spec


def _spec(
    event: str,
    matcher: str | None,
    handler: _Handler,
    source: SettingsSource,
    where: str,
    notes: _Notes,
) -> HandlerSpec | None:
    kind = handler.type
    if kind not in HANDLER_TYPES:
        close = difflib.get_close_matches(kind.lower(), sorted(HANDLER_TYPES), n=1)
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        notes.skip(f"{where}.type", kind, f'unknown handler type "{kind}"{hint}')
        return None
    if kind == "command" and handler.command == "":
        notes.warn(f"{where}.command", "empty command; ignored")
        return None
    command, args = _command(handler, source, where)
    _require(handler, source, where)
    if kind == "http" and event in _NO_HTTP:
        message = f'Claude Code does not run "http" handlers on {event} (only command, mcp_tool)'
        notes.skip(f"{where}.type", kind, message)
    elif kind in ("prompt", "agent") and event not in PROMPT_EVENTS:
        message = f'Claude Code does not run "{kind}" handlers on {event}'
        notes.skip(f"{where}.type", kind, message)
    elif dead := sorted(
        {m for text in (command, *(args or ())) for m in _DEAD_VARS.findall(text or "")}
    ):
        names = ", ".join(f"${name}" for name in dead)
        notes.warn(
            where, f"uses {names}, which no Claude Code build sets (hooks read JSON on stdin)"
        )
    if source.kind in _SETTINGS_KINDS and any(
        PLUGIN_ROOT in text for text in (command or "", *(args or ()))
    ):
        notes.warn(where, _NO_PLUGIN_ROOT)
    if handler.if_rule is not None and event not in IF_EVENTS:
        notes.warn(where, f"`if` is checked only on {_IF_LIST}; on {event} this handler never runs")
    background = _background(handler, where, notes)
    if handler.once and source.kind != "skill":
        notes.warn(
            f"{where}.once", "honoured only in a skill's front matter, as in Claude Code: ignored"
        )
    return HandlerSpec(
        event=event,
        matcher=matcher,
        type=handler.type,
        command=command,
        args=args,
        timeout=handler.timeout,
        if_rule=handler.if_rule,
        on_failure=handler.on_failure,
        run_async=background and handler.run_async,
        async_rewake=background and handler.async_rewake,
        rewake_message=handler.rewake_message,
        rewake_summary=handler.rewake_summary,
        once=handler.once and source.kind == "skill",
        shell=handler.shell,
        status_message=handler.status_message,
        url=handler.url,
        headers=tuple((handler.headers or {}).items()),
        allowed_env_vars=tuple(handler.allowed_env_vars or ()),
        prompt=handler.prompt,
        model=handler.model,
        continue_on_block=handler.continue_on_block,
        server=handler.server,
        tool=handler.tool,
        tool_input=None if handler.input is None else json.dumps(handler.input),
        source=source,
        where=where,
    )


def _command(
    handler: _Handler, source: SettingsSource, where: str
) -> tuple[str | None, tuple[str, ...] | None]:
    """The command and exec-form args, checked, with the plugin root substituted."""
    if handler.type != "command":
        return handler.command, None
    if handler.command is None:
        message = 'a command handler needs a "command" string'
        raise ConfigError(message, file=source.path, key=f"{where}.command")
    root = source.plugin_root or PLUGIN_ROOT  # replacing the name by itself: a no-op
    args = (
        None if handler.args is None else tuple(a.replace(PLUGIN_ROOT, root) for a in handler.args)
    )
    return handler.command.replace(PLUGIN_ROOT, root), args


def _background(handler: _Handler, where: str, notes: _Notes) -> bool:
    """Whether `async`/`asyncRewake` apply: Claude Code runs only command handlers in the
    background; another type with them runs in the foreground, as there."""
    if not (handler.run_async or handler.async_rewake):
        return False
    if handler.type == "command":
        return True
    notes.warn(
        where,
        f"async and asyncRewake apply to command handlers only; this {handler.type} "
        "handler runs in the foreground",
    )
    return False


def _tuple(items: list[str] | None) -> tuple[str, ...] | None:
    return None if items is None else tuple(items)


_REQUIRED: Final = {
    "http": ("url",),
    "prompt": ("prompt",),
    "agent": ("prompt",),
    "mcp_tool": ("server", "tool"),
}


def _require(handler: _Handler, source: SettingsSource, where: str) -> None:
    """A handler missing a field its type runs on is refused, as Claude Code refuses it."""
    for field in _REQUIRED.get(handler.type, ()):
        if not getattr(handler, field):
            message = f'a {handler.type} handler needs a non-empty "{field}" string'
            raise ConfigError(message, file=source.path, key=f"{where}.{field}")


def _unknown_event(event: str, entries: object) -> str:
    if isinstance(entries, list) and entries and all(_is_bare_handler(e) for e in entries):
        return (
            'handlers directly under "hooks" keyed by a tool name are a legacy form no current '
            "Claude Code build runs (put them in a matcher group under PreToolUse or "
            f'PostToolUse with "matcher": "{event}")'
        )
    hint = next(
        (f' (did you mean "{e}"?)' for e in CLAUDE_EVENTS if e.lower() == event.lower()), ""
    )
    return f'unknown event "{event}"{hint}'


def _is_bare_handler(entry: object) -> bool:
    return isinstance(entry, Mapping) and "hooks" not in entry and "command" in entry

"""The agent `hookagent run` builds from its flags, and the same agent rebuilt later.

A run kept in a store saves its options in its metadata under `"cli"` (`saved_options`):
every flag but the prompt, `--json`, `--session` and `--store`, with each path made absolute
and the directory the run started in. `resume` and `worker` read them back (`options_of`) and
build the same agent, from any directory: the same tools and hooks, hence the same policy
version, under which the answers given to the run's questions still apply.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.sessions._model_aliases import apply_model_aliases, saved_model_aliases
from hookagent.sessions._plugins import apply_plugins
from hookagent.sessions._validate import check_run_options
from hookagent.sessions._warn import warn

if TYPE_CHECKING:
    from hookagent._agent import Agent
    from hookagent._builder import AgentBuilder
    from hookagent.capabilities.mcp import MCP
    from hookagent.capabilities.notify import Notify
    from hookagent.claude._commands import Expansion
    from hookagent.models._base import Model
    from hookagent.store._base import Store
    from hookagent.store._records import RunRecord

__all__ = [
    "CLI_KEY",
    "RunOptions",
    "build_agent",
    "connected_agent",
    "options_of",
    "saved_options",
    "scripted_path",
]

CLI_KEY: Final = "cli"
"""The key of a run's metadata that holds the options it was started with."""

_NOT_SAVED: Final = frozenset(
    {"prompt", "json", "session", "store", "clear", "expansion", "notify"}
)
"""Options of one invocation, not of the agent: never saved."""


@record
class RunOptions:
    """What `hookagent run` was asked to do, apart from how its flags were parsed."""

    prompt: str
    model: str
    json: bool = False
    system: str | None = None
    max_steps: int | None = None
    max_tokens: int | None = None
    max_seconds: float | None = None
    max_cost: float | None = None
    prices: tuple[str, ...] = ()
    """`--price MODEL=IN/OUT` values: prices for `--max-cost` over the built-in table."""
    model_aliases: tuple[str, ...] = ()
    """`--model-alias ALIAS=PROVIDER:MODEL` values: the models agent files name, mapped."""
    max_result_chars: int | None = None
    """The most characters of a tool result the model reads before the rest is saved to a
    file in the run's folder (0: no limit); None: the default, 50,000."""
    plugins: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()
    mcp_configs: tuple[str, ...] = ()
    """`--mcp-config` files: Claude Code `.mcp.json` files whose servers the run connects."""
    discover_settings: bool = False
    """Also read the standard Claude Code settings files and the project's `.mcp.json`."""
    allow_unsupported_hooks: bool = False
    """Run even though the settings hold hooks hookagent does not run (they are reported as
    not run, and recorded in the run); without it such settings are a `ConfigError`."""
    root: str | None = None
    allow_bash: bool = False
    read_only: bool = False
    approvals: bool = False
    """Install `Approvals` for the project in `cwd`: the permission rules of its Claude Code
    settings, and an ask before destructive calls no rule allows."""
    base_url: str | None = None
    session: str | None = None
    """Keep the run in this session of the store (continued if it exists)."""
    clear: bool = False
    """`--clear`: the session's conversation starts afresh (session_start's source `clear`)."""
    store: str | None = None
    """The store's URL or path; None: `.hookagent/sessions.db` (when a session is asked for)."""
    cwd: str | None = None
    """The directory the agent works in: Bash without `--root` runs there, Claude Code
    settings are discovered from there, module plugins are imported from there. None: the
    current directory."""
    replies_before: int = 0
    """For a `scripted:` model in a session: the session's replies its script does not
    cover (earlier runs answered by another script; see `cli.session_script`)."""
    claude_project: str | None = None
    """`--claude-project`: a Claude Code project folder run as it is (`cli.claude_project`)."""
    claude_plugins: tuple[str, ...] = ()
    """`--claude-plugin` folders."""
    expansion: Expansion | None = None
    """The slash command the prompt was expanded from (one invocation's; never saved)."""
    init: bool = False
    """`--init`: Claude Code Setup hooks fire (trigger `init`) before SessionStart, at the
    start of a new session's run."""
    notify: Notify | None = None
    """`--notify`: the webhooks told of each question (one process's; never saved)."""

    @property
    def durable(self) -> bool:
        return self.session is not None or self.store is not None


@asynccontextmanager
async def connected_agent(
    options: RunOptions, store: Store | None = None
) -> AsyncIterator[tuple[Agent, Model]]:
    """`build_agent` with the run's MCP servers connected first (in this event loop, which
    the run must use), and closed when the block ends."""
    from hookagent.sessions._mcp_servers import connected

    async with connected(options) as mcp:
        yield build_agent(options, store, mcp=mcp)


def build_agent(
    options: RunOptions, store: Store | None = None, *, mcp: MCP | None = None
) -> tuple[Agent, Model]:
    """The agent `options` describe (kept in `store` if given), and its model; `mcp`: its
    MCP servers, connected (see `connected_agent`)."""
    from hookagent._builder import AgentBuilder  # the runtime, loaded when an agent is built

    check_run_options(options)
    if options.mcp_configs and mcp is None:
        raise ConfigError("the MCP servers are not connected", key="--mcp-config")
    model = _model(options, durable=store is not None)
    builder = AgentBuilder().model(model)
    if options.system is not None:
        builder.system_prompt(options.system)
    _install_tools(builder, options)
    if mcp is not None:
        builder.with_(mcp)
    if options.claude_project is not None or options.claude_plugins:
        from hookagent.sessions._claude_project import install_project

        install_project(builder, options, warn, mcp)
    elif options.settings or options.discover_settings:
        _install_settings(builder, options, mcp)
    if options.cwd is not None and options.cwd not in sys.path:
        sys.path.insert(0, options.cwd)  # module plugins are found where the run started
    if options.approvals and options.claude_project is None:
        from hookagent.capabilities.approvals import Approvals

        builder.with_(Approvals(project_dir=options.cwd or "."))
    apply_plugins(builder, options.plugins)
    # After the plugins, so a flag given on the command line has the last word.
    limits: dict[str, Any] = {
        key: value
        for key, value in (
            ("max_steps", options.max_steps),
            ("max_tokens", options.max_tokens),
            ("max_seconds", options.max_seconds),
        )
        if value is not None
    }
    if limits:
        builder.limits(**limits)
    if options.max_cost is not None:
        from hookagent.policies._cost import CostLimit
        from hookagent.sessions._prices import PRICE_REMEDY, parse_prices

        prices = parse_prices(options.prices)
        cost = CostLimit(options.max_cost, prices=prices, remedy=PRICE_REMEDY)
        builder.limits(max_cost=None).with_(cost)
    apply_model_aliases(builder, options.model_aliases)
    if options.max_result_chars is not None:
        builder.outputs(max_result_chars=options.max_result_chars or None)
    if store is not None:
        builder.store(store)
    return _built(builder), model


def _built(builder: AgentBuilder) -> Agent:
    """The agent, what its capabilities left out or will not honour as written printed
    (agent and skill files that cannot be read, unmapped model aliases, missing tools)."""
    agent = builder.build()
    for line in builder.warnings:
        warn(line)
    return agent


def _model(options: RunOptions, *, durable: bool) -> Model:
    from hookagent.models._resolve import resolve_model
    from hookagent.models._scripted import ScriptedModel

    path = scripted_path(options)
    if durable and path is not None:
        # By history: turn k answers a history with k replies (after those of the session
        # that another script answered), so one script serves a whole session, across the
        # processes that run, resume and continue it.
        return ScriptedModel.from_file(path, by_history=True, replies_before=options.replies_before)
    return resolve_model(options.model, base_url=options.base_url)


def _install_tools(builder: AgentBuilder, options: RunOptions) -> None:
    """The built-in capabilities the flags ask for; each is loaded only when asked for."""
    if options.root is not None:
        from hookagent.capabilities.files import FileTools
        from hookagent.capabilities.planning import TaskPlanning

        builder.with_(FileTools(options.root, read_only=options.read_only))
        builder.with_(TaskPlanning())
    if options.allow_bash:
        from hookagent.capabilities.bash import Bash

        bash = Bash.from_claude_settings(  # the settings' `sandbox` keys
            options.root or options.cwd or ".",
            project_dir=options.claude_project or options.cwd or ".",
            explicit=options.settings,
            include_standard=options.discover_settings or options.claude_project is not None,
        )
        builder.with_(bash)
    if options.notify is not None:
        builder.with_(options.notify)


def _install_settings(builder: AgentBuilder, options: RunOptions, mcp: MCP | None) -> None:
    """The Claude Code hooks of the settings, their warnings printed as `hooks check` prints
    them (a `ConfigError` for hooks hookagent would not run, unless allowed); their
    `mcp_tool` handlers call the run's MCP servers over its connections."""
    from hookagent.claude._bridge import ClaudeHooks
    from hookagent.claude._options import ClaudeHookOptions
    from hookagent.sessions._settings_files import read_settings, settings_line

    project = options.cwd or "."
    standard = options.discover_settings
    loaded = read_settings(project, options.settings, standard=standard)
    print(settings_line(loaded, project, standard=standard), file=sys.stderr)
    builder.with_(
        ClaudeHooks(
            loaded,
            ClaudeHookOptions(
                project_dir=project,
                mcp_servers={} if mcp is None else {n: mcp.connection(n) for n in mcp.servers},
                setup="init" if options.init else None,
            ),
            allow_unsupported=options.allow_unsupported_hooks,
            warn=warn,
        )
    )


# -- saving and reading back ------------------------------------------------------------------
def saved_options(options: RunOptions) -> dict[str, Any]:
    """`options` as JSON data to keep with a run: paths absolute, the directory named."""
    cwd = os.path.abspath(options.cwd or os.getcwd())
    data: dict[str, Any] = {
        f.name: getattr(options, f.name) for f in fields(RunOptions) if f.name not in _NOT_SAVED
    }
    provider, sep, path = options.model.partition(":")
    if provider == "scripted" and sep and path:
        data["model"] = f"scripted:{_absolute(path, cwd)}"
    data["plugins"] = [_absolute(p, cwd) if _is_path(p, cwd) else p for p in options.plugins]
    data["settings"] = [_absolute(s, cwd) for s in options.settings]
    data["model_aliases"] = saved_model_aliases(options.model_aliases, cwd)
    data["mcp_configs"] = [_absolute(f, cwd) for f in options.mcp_configs]
    data["root"] = _absolute(options.root, cwd) if options.root is not None else None
    if options.claude_project is not None:
        data["claude_project"] = _absolute(options.claude_project, cwd)
    data["claude_plugins"] = [_absolute(p, cwd) for p in options.claude_plugins]
    data["cwd"] = cwd
    return data


def options_of(run: RunRecord) -> RunOptions:
    """The options `run` was started with, read from its metadata. A `ConfigError` saying
    what is missing if it saved none (a run started or submitted from Python without them),
    or they cannot be read."""
    try:
        scalars = json.loads(run.scalars)
    except ValueError:
        scalars = {}
    metadata = scalars.get("metadata") if isinstance(scalars, dict) else None
    saved = metadata.get(CLI_KEY) if isinstance(metadata, dict) else None
    if saved is None:
        raise ConfigError(
            f"run {run.id} saved no options to rebuild its agent from: its metadata has no "
            f"{CLI_KEY!r} key. Submit it with `hookagent submit`, or from Python with "
            f"`agent.submit(prompt, metadata={{{CLI_KEY!r}: {{'model': 'PROVIDER:MODEL', ...}}}})`"
            " (the options of `hookagent run`, paths absolute); or resume it from Python with "
            f"`await agent.resume({run.id!r})` on an agent built as it was",
            key=CLI_KEY,
        )
    return from_saved(saved, where=f"run {run.id}")


def from_saved(saved: Any, *, where: str = "run") -> RunOptions:
    """`RunOptions` from `saved_options` data; a key it does not know is a `ConfigError`."""
    if not isinstance(saved, Mapping) or not isinstance(saved.get("model"), str):
        raise ConfigError(
            f"the options saved with {where} name no model: {CLI_KEY!r} must be a mapping "
            "with a 'model' such as 'scripted:/path/turns.json' or 'openai:gpt-4o'",
            key=CLI_KEY,
        )
    known = {f.name for f in fields(RunOptions)} - _NOT_SAVED
    unknown = sorted(str(key) for key in saved if key not in known)
    if unknown:
        raise ConfigError(
            f"the options saved with {where} have unknown keys: {', '.join(unknown)}; "
            f"known: {', '.join(sorted(known))}",
            key=CLI_KEY,
        )
    values: dict[str, Any] = {"prompt": "", "model": saved["model"]}
    kinds: dict[str, tuple[type, ...]] = {
        "system": (str,),
        "max_steps": (int,),
        "max_tokens": (int,),
        "max_seconds": (int, float),
        "max_cost": (int, float),
        "max_result_chars": (int,),
        "discover_settings": (bool,),
        "allow_unsupported_hooks": (bool,),
        "root": (str,),
        "allow_bash": (bool,),
        "read_only": (bool,),
        "approvals": (bool,),
        "init": (bool,),
        "replies_before": (int,),
        "claude_project": (str,),
        "base_url": (str,),
        "cwd": (str,),
    }
    for key, kind in kinds.items():
        value = saved.get(key)
        if value is None:
            continue
        if not isinstance(value, kind) or (bool not in kind and isinstance(value, bool)):
            raise ConfigError(
                f"the options saved with {where} have a bad {key}: {value!r}", key=CLI_KEY
            )
        values[key] = value
    for key in ("plugins", "settings", "prices", "model_aliases", "mcp_configs", "claude_plugins"):
        items = saved.get(key) or []
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ConfigError(
                f"the options saved with {where} have a bad {key}: {items!r}", key=CLI_KEY
            )
        values[key] = tuple(items)
    return RunOptions(**values)


def scripted_path(options: RunOptions) -> str | None:
    """The absolute path of the script of a `scripted:` model; None for other models."""
    provider, sep, path = options.model.partition(":")
    return _absolute(path, options.cwd) if provider == "scripted" and sep and path else None


def _absolute(path: str, cwd: str | None) -> str:
    return os.path.abspath(os.path.join(cwd or os.getcwd(), os.path.expanduser(path)))


def _is_path(spec: str, cwd: str) -> bool:
    """A plugin given as a file, as `plugins` tells them from module names."""
    return spec.endswith(".py") or "/" in spec or os.sep in spec or (Path(cwd) / spec).is_file()

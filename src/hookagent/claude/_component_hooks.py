"""Hooks a skill or a subagent carries in its front matter (`hooks:`, in a settings file's
shape), live only while that component is.

A skill's hooks are live from the first time the skill is loaded in a session (the `Skill`
tool answered, or the run's prompt is the skill's slash command) for the rest of that
session; a handler with `once: true` is dropped after its first successful run in the
session (a run that fails, blocks or times out keeps it). A
subagent's hooks are live while that subagent runs, and its `Stop` is `SubagentStop`, which
fires in the parent as the subagent ends (`once` is ignored there, as in Claude Code).

They are read as settings files are, by `settings.parse_settings`: a handler Claude Code
would refuse, or one hookagent would not run, is a `ConfigError` naming the file, the path
under `hooks:` and its line, when the skills or subagents are installed. They run through
the same `event_handlers.EventHandlers` as settings hooks, apart from settings-file repeats. Which
skills a session has loaded is kept in memory by session and in the run's metadata, so a
resumed run finds them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, final

from hookagent._errors import ConfigError
from hookagent._frontmatter import FrontMatter, read_front_matter
from hookagent._record import record
from hookagent.claude._checks import check_settings
from hookagent.claude._event_handlers import EventHandlers, Ran
from hookagent.claude._events import FIRED
from hookagent.claude._model import HandlerSpec, LoadedSettings, SettingsSource
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._prompt_hook import PromptModels
from hookagent.claude._selection import select_spec
from hookagent.claude._session import Sessions, session_hooks
from hookagent.claude._settings import parse_settings
from hookagent.hooks._events import RunEvent, ToolResultEvent
from hookagent.hooks._hook import Hook, Inherit, make_hook
from hookagent.hooks._points import AFTER_TOOL, EXECUTION_START
from hookagent.hooks._result import HookResult
from hookagent.kernel._view import RunView
from hookagent.models._base import Model

if TYPE_CHECKING:
    from hookagent.claude._agent_hook import Checker

__all__ = [
    "LOADED_SKILLS_KEY",
    "Component",
    "ComponentHooks",
    "child_hooks",
    "parent_hooks",
    "read_component",
    "skill_hooks",
    "subagent_hooks",
]

ComponentKind = Literal["skill", "agent"]
LOADED_SKILLS_KEY: Final = "claude.skills_loaded"
"""Run metadata: the skills loaded in the run's session whose hooks are live."""
PARENT_EVENTS: Final = frozenset({"SubagentStart", "SubagentStop"})
"""A subagent's own events that fire in its parent, matched on its type."""
_STEP: Final = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


@record(kw_only=False)
class Component:
    """One skill's or subagent's front-matter hooks."""

    kind: ComponentKind
    name: str
    handlers: tuple[HandlerSpec, ...]
    warnings: tuple[str, ...] = ()


def read_component(path: str | Path, kind: ComponentKind, name: str) -> Component | None:
    """The hooks of the skill or agent file at `path`, checked; None when it has none."""
    fields, _ = read_front_matter(Path(path))
    raw = fields.get("hooks")
    if raw is None:
        return None
    source = SettingsSource(path=str(path), kind=kind)
    try:
        read = parse_settings({"hooks": raw}, source)
    except ConfigError as exc:
        raise _on_line(exc, fields) from None
    if read.skipped:
        first = read.skipped[0]
        raise _on_line(
            ConfigError(
                f"{first.message}, so hookagent would skip this hook",
                file=source.path,
                key=first.key,
                value=first.value,
            ),
            fields,
        )
    handlers = tuple(_as_subagent(s) if kind == "agent" else s for s in read.handlers)
    for spec in handlers:
        select_spec(spec)  # an `if` rule that cannot be read fails here, not mid-run
    report = check_settings(LoadedSettings(handlers=handlers, warnings=read.warnings))
    return Component(kind=kind, name=name, handlers=handlers, warnings=report.warnings)


def _as_subagent(spec: HandlerSpec) -> HandlerSpec:
    """A subagent's Stop is the SubagentStop its parent fires as it ends; `where` still
    names the key as written."""
    return replace(spec, event="SubagentStop") if spec.event == "Stop" else spec


def _on_line(exc: ConfigError, fields: FrontMatter) -> ConfigError:
    """`exc` with the front matter line of its key (`hooks.PreToolUse[0].hooks[1].command`)."""
    if not exc.key or not exc.key.startswith("hooks"):
        return exc
    path: list[str | int] = [int(index) if index else key for key, index in _STEP.findall(exc.key)][
        1:
    ]
    line = fields.line("hooks", *path)
    prefix = f"{exc.file}, {exc.key}: " if exc.file else f"{exc.key}: "
    message = str(exc).removeprefix(prefix)
    return ConfigError(f"front matter line {line}: {message}", file=exc.file, key=exc.key)


@final
class ComponentHooks:
    """Several components' hooks as hookagent hooks: one per Claude Code event, running the
    handlers `live` says are live for the event, and dropping spent `once` handlers."""

    __slots__ = (
        "_live",
        "_models",
        "_options",
        "_sessions",
        "_source",
        "_spent",
        "components",
        "warnings",
    )

    def __init__(
        self,
        components: Iterable[Component],
        options: ClaudeHookOptions | None,
        *,
        live: Callable[[Any, Component], bool],
        source: str,
    ) -> None:
        self.components = {c.handlers[0].source.path: c for c in components if c.handlers}
        """By file."""
        self.warnings = tuple(w for c in self.components.values() for w in c.warnings)
        self._options = options or ClaudeHookOptions()
        self._sessions = Sessions(self._options)
        specs = [s for c in self.components.values() for s in c.handlers]
        self._models = PromptModels(self._options.prompt_model, specs)
        self._live, self._source = live, source
        self._spent: dict[str, set[str]] = {}
        """Session → the labels of `once` handlers that ran successfully there."""

    def bind(
        self, model: Model, aliases: Mapping[str, str | Model], checker: Checker | None = None
    ) -> None:
        """The model of the agent the components run in, what its model aliases stand for
        (resolved models, for a subagent's files), and how its `agent` handlers make their
        agent."""
        self._models.bind(model, aliases, checker)

    def hooks(
        self,
        events: Callable[[str], bool] = lambda _: True,
        *,
        only: str | None = None,
        inherit: Inherit = "all",
    ) -> Iterator[Hook[Any]]:
        """The hooks of the events `events` accepts (of the component named `only`, if
        given), and those that end the run's session."""
        by_event: dict[str, list[HandlerSpec]] = {}
        for component in self.components.values():
            if only is not None and component.name != only:
                continue
            for spec in component.handlers:
                if events(spec.event):
                    by_event.setdefault(spec.event, []).append(spec)
        for event_name, specs in by_event.items():
            mapping = FIRED[event_name]
            runner = EventHandlers(
                event_name,
                mapping,
                tuple(select_spec(s) for s in specs),
                self._options,
                self._sessions,
                self._models,
                select=self._select,
                ran=self._ran,
            )
            yield make_hook(
                mapping.point,
                runner,
                name=event_name,
                kind=mapping.kind,
                source=self._source,
                inherit=inherit,
                timeout=None,
            )
        if by_event:
            background = any(s.background for specs in by_event.values() for s in specs)
            yield from session_hooks(self._sessions, self._source, background=background)

    def _select(self, event: Any, spec: HandlerSpec) -> bool:
        component = self.components[spec.source.path]
        if spec.once and spec.label in self._spent.get(_session(event.run), ()):
            return False
        return self._live(event, component)

    def _ran(self, event: Any, chosen: Sequence[HandlerSpec], verdicts: Sequence[Ran]) -> None:
        """A `once` handler that succeeded (or was started in the background) is spent."""
        answered = {spec.label: verdict for spec, verdict in verdicts}
        spent = self._spent.setdefault(_session(event.run), set())
        for spec in chosen:
            if not spec.once:
                continue
            verdict = answered.get(spec.label)
            if verdict is None or (
                not verdict.failed and verdict.decision not in ("block", "deny")
            ):
                spent.add(spec.label)


def _session(run: RunView) -> str:
    return run.session_id or run.run_id


# -- skills ------------------------------------------------------------------------------
@final
class _LoadedSkills:
    """Which skills each session has loaded: kept here, and in each run's metadata. A skill
    whose slash command the prompt expanded is loaded from the run's start."""

    __slots__ = ("_by_session", "invoked")

    def __init__(self, invoked: str | None = None) -> None:
        self._by_session: dict[str, set[str]] = {}
        self.invoked = invoked

    def of(self, run: RunView) -> set[str]:
        fresh = set() if self.invoked is None else {self.invoked}
        names = self._by_session.setdefault(_session(run), fresh)
        saved = run.metadata.get(LOADED_SKILLS_KEY)
        if isinstance(saved, list):
            names.update(str(n) for n in saved)
        return names

    def live(self, event: Any, component: Component) -> bool:
        return component.name in self.of(event.run)

    def loaded(self, event: ToolResultEvent) -> HookResult | None:
        """After the `Skill` tool answered: its skill's hooks are live from now on."""
        name = event.result.returned("name")
        if not isinstance(name, str):
            return None
        names = self.of(event.run)
        if name in names:
            return None
        names.add(name)
        return HookResult.modify(metadata={LOADED_SKILLS_KEY: sorted(names)})

    def started(self, event: RunEvent) -> HookResult | None:
        """The invoked skill in the run's metadata, so a resumed run finds it loaded."""
        names = self.of(event.run)
        if event.run.metadata.get(LOADED_SKILLS_KEY) == sorted(names) or not names:
            return None
        return HookResult.modify(metadata={LOADED_SKILLS_KEY: sorted(names)})


def skill_hooks(
    skills: Iterable[tuple[str, Path]], options: ClaudeHookOptions | None
) -> tuple[ComponentHooks, tuple[Hook[Any], ...]] | None:
    """The hooks of skills given as (name, file), and the hooks that make a skill's hooks
    live: when the `Skill` tool loads it, or from the start when the run's prompt is its
    slash command's expansion (`ClaudeHookOptions.expansion`); None when no skill has
    hooks."""
    found = [c for name, path in skills if (c := read_component(path, "skill", name))]
    if not found:
        return None
    loaded = _LoadedSkills(_invoked(found, options))
    hooks = ComponentHooks(found, options, live=loaded.live, source="claude-skill")
    common: dict[str, Any] = {
        "source": "claude-skill",
        "kind": "transform",
        "inherit": "none",
        "timeout": None,
    }
    marker = make_hook(AFTER_TOOL, loaded.loaded, match="Skill", name="skill_loaded", **common)
    if loaded.invoked is None:
        return hooks, (marker,)
    start = make_hook(EXECUTION_START, loaded.started, name="skill_invoked", **common)
    return hooks, (marker, start)


def _invoked(found: Sequence[Component], options: ClaudeHookOptions | None) -> str | None:
    """The skill (among those with hooks) whose slash command the prompt expanded."""
    expansion = None if options is None else options.expansion
    if expansion is None:
        return None
    path = Path(expansion.command.path).resolve()
    for component in found:
        if Path(component.handlers[0].source.path).resolve() == path:
            return component.name
    return None


# -- subagents ---------------------------------------------------------------------------
def subagent_hooks(
    agents: Iterable[tuple[str, str]], options: ClaudeHookOptions | None
) -> ComponentHooks | None:
    """The hooks of subagents given as (name, file); None when none has hooks. A subagent's
    SubagentStart and SubagentStop hooks run in its parent (`parent_hooks`), the others in
    its own run (`child_hooks`); each only for that subagent."""
    found = [
        c
        for name, path in agents
        if Path(path).is_file() and (c := read_component(path, "agent", name))
    ]
    if not found:
        return None
    return ComponentHooks(found, options, live=_of_type, source="claude-agent")


def _of_type(event: Any, component: Component) -> bool:
    """Whether the event is the subagent's: in its parent, a SubagentStart/SubagentStop
    naming its type; in its own run, any event."""
    agent_type = getattr(event, "agent_type", None) or event.run.agent_type
    return bool(component.name == agent_type)


def parent_hooks(hooks: ComponentHooks) -> Iterator[Hook[Any]]:
    return hooks.hooks(lambda event: event in PARENT_EVENTS)


def child_hooks(hooks: ComponentHooks, name: str) -> Iterator[Hook[Any]]:
    """The hooks a subagent of type `name` runs in its own run (not its own subagents)."""
    return hooks.hooks(lambda event: event not in PARENT_EVENTS, only=name, inherit="none")

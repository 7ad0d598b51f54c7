"""`Subagents`: the `Agent` tool, which runs a child agent to completion and hands its parent
a bounded summary of the answer.

A child is an agent of its own: its own state, `parent_run_id` naming its parent, its type
on every event it fires (`event.run.agent_type`). It gets its parent's tools (or those of the
spec's list its parent has), its parent's model unless the spec names one (`resolve`: model
aliases, and the notices for what is not honoured, in `warnings`), and the parent's hooks that are
inherited by its type (`inherit=` on each hook; policy-tier hooks always, so a child never
escapes a parent's guard). `subagent_start` fires in the parent before the child runs;
`subagent_stop` fires in the parent when the child is about to stop, and a block there keeps
the child going with the reason as its next instruction (Claude Code's SubagentStop). A
depth limit (3) stops agents spawning agents without end; several `Agent` calls in one turn
run concurrently.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol, final

from hookagent._errors import ConfigError
from hookagent.capabilities.subagents._resolve import (
    child_model,
    child_tools,
    notices,
    resolve_aliases,
)
from hookagent.capabilities.subagents._specs import AgentRegistry, AgentSpec
from hookagent.claude._component_files import declares_hooks
from hookagent.hooks._events import StopEvent, SubagentEvent, ToolCallEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import BEFORE_TOOL, STOP, SUBAGENT_START, SUBAGENT_STOP
from hookagent.hooks._registry import HookRegistry
from hookagent.hooks._result import HookResult
from hookagent.kernel._metadata import MetadataKey
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.models._base import Model
from hookagent.tools._base import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from hookagent._agent import Agent
    from hookagent.claude._component_hooks import ComponentHooks
    from hookagent.claude._options import ClaudeHookOptions

__all__ = ["DEPTH", "TOOL_NAME", "AgentTool", "ChildRuns", "InProcess", "Subagents"]

TOOL_NAME: Final = "Agent"
DEPTH: Final = MetadataKey[int]("subagents.depth", default=0)


@final
class Subagents:
    name = "subagents"

    def __init__(
        self,
        registry: AgentRegistry | Iterable[AgentSpec] | None = None,
        *,
        max_depth: int = 3,
        summary_max_chars: int = 8000,
        hook_options: ClaudeHookOptions | None = None,
    ) -> None:
        """An agent file's `hooks:` (Claude Code hooks in its front matter) run while that
        subagent runs, as `hook_options` say (`hookagent.claude._component_hooks`); a hook that
        cannot run as written is a `ConfigError` naming the file, key and line."""
        if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1:
            raise ConfigError(
                f"must be a whole number >= 1, not {max_depth!r}", key="Subagents(max_depth)"
            )
        if not isinstance(summary_max_chars, int) or summary_max_chars < 100:
            raise ConfigError(
                f"must be a whole number >= 100, not {summary_max_chars!r}",
                key="Subagents(summary_max_chars)",
            )
        if registry is None:
            registry = AgentRegistry.discover()
        self.registry = registry if isinstance(registry, AgentRegistry) else AgentRegistry(registry)
        self.max_depth = max_depth
        self.summary_max_chars = summary_max_chars
        self._front = _front_matter_hooks(self.registry, hook_options)
        self.tool = AgentTool(self)
        self._parent: Agent | None = None
        self._aliases: dict[str, Model] = {}
        self._notices: list[str] = []
        self._children: dict[str, Agent] = {}
        self.parents: dict[str, RunView] = {}
        """Child run id → its parent's view, while the child runs."""
        self.states: list[RunState] = []
        """Every child run's final state, for inspection and metrics."""

    def bind(self, agent: Agent, /) -> None:
        """The builder hands over the agent it built: children are made from it, and its
        model aliases (`AgentBuilder.model_alias`) are resolved now, for agent files and
        their front-matter prompt and agent hooks. What the specs ask for and will not get
        is noted now, once (`warnings`)."""
        self._aliases = resolve_aliases(agent.model_aliases)
        self._parent = agent
        specs = self.registry.specs.values()
        self._notices = notices(specs, agent.tools, self._aliases)
        if self._front is not None:
            self._front.bind(agent.model, self._aliases, agent.checker)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Agent files left out, and what the agents ask for and will not get as written."""
        hooks = () if self._front is None else self._front.warnings
        return (*self.registry.warnings, *self._notices, *hooks)

    # -- capability -------------------------------------------------------------------
    def tools(self) -> Iterable[Tool]:
        yield self.tool

    def hooks(self) -> Iterable[Hook[Any]]:
        yield make_hook(
            BEFORE_TOOL,
            self.depth_limit,
            match=TOOL_NAME,
            name="depth_limit",
            source=self.name,
            tier="policy",
            timeout=None,
        )
        if self._front is not None:
            from hookagent.claude._component_hooks import parent_hooks

            yield from parent_hooks(self._front)

    def depth_limit(self, event: ToolCallEvent) -> HookResult | None:
        depth = DEPTH.get(event.run) or 0
        if depth >= self.max_depth:
            return HookResult.block(
                f"[Subagent Error] Maximum nesting depth ({self.max_depth}) reached: an agent "
                f"at depth {depth} cannot start another; do the work yourself"
            )
        return None

    # -- children ---------------------------------------------------------------------
    def child_agent(self, spec: AgentSpec) -> Agent:
        agent = self._children.get(spec.name)
        if agent is None:
            agent = self._children[spec.name] = self._build_child(spec)
        return agent

    def _build_child(self, spec: AgentSpec) -> Agent:
        parent = self._parent
        if parent is None:
            raise ConfigError(
                "Subagents was not installed with AgentBuilder.with_()", key="Subagents"
            )
        tools = child_tools(spec, parent.tools)
        registry = HookRegistry(h for h in parent.registry if h.inherited_by(spec.name))
        registry.add(
            make_hook(
                STOP,
                _StopBridge(self, spec.name),
                name="stop_bridge",
                source=self.name,
                timeout=None,
            )
        )
        if self._front is not None:
            from hookagent.claude._component_hooks import child_hooks

            for own in child_hooks(self._front, spec.name):
                registry.add(own)
        return type(parent)(  # the parent's own kind of agent: no import of the layer above
            model=child_model(spec, parent.model, self._aliases),
            tools=tools,
            registry=registry,
            system_prompt=spec.system_prompt,
            settings=parent.settings,
            budgets=parent.budgets,
        )

    def summary(self, spec: AgentSpec, state: RunState) -> ToolResult:
        head = f"[Subagent: {spec.name}]"
        if state.status == "failed":
            return ToolResult.error(f"{head} Failed: {state.error or state.stop_message}")
        output = (state.output or "").strip()
        if not output:
            why = f" (stopped: {state.stop_message})" if state.status == "stopped" else ""
            return ToolResult.error(f"{head} No response{why}")
        if len(output) > self.summary_max_chars:
            output = output[: self.summary_max_chars] + "\n..."
        data = {"agent_id": state.run_id, "agent_type": spec.name, "status": state.status}
        return ToolResult(content=f"{head} {output}", data=data)


@final
class AgentTool:
    """`Agent{description, prompt, subagent_type}`; matchers naming `Task` match it too."""

    name = TOOL_NAME
    description = (
        "Start a subagent for a task that needs its own focus: it works on `prompt` with its "
        "own instructions and tools and returns its answer. Several calls in one turn run "
        "at the same time."
    )
    concurrent = True

    def __init__(self, owner: Subagents, runs: ChildRuns | None = None) -> None:
        """`runs`: where a child runs (default: in this process, `InProcess`); a backend
        that runs each child elsewhere (a Temporal child workflow) gives its own."""
        self.owner = owner
        self.runs = runs if runs is not None else InProcess(owner)

    @property
    def parameters(self) -> Mapping[str, Any]:
        names = sorted(self.owner.registry.specs)
        types: dict[str, Any] = {"type": "string", "description": "Which agent to start."}
        if names:
            types["enum"] = names
        return {
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A few words on the task."},
                "prompt": {"type": "string", "description": "The whole task for the agent."},
                "subagent_type": types,
            },
            "required": ["description", "prompt", "subagent_type"],
        }

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext, /) -> ToolResult:
        owner = self.owner
        kind = str(args.get("subagent_type") or "")
        spec = owner.registry.get(kind)
        if spec is None:
            known = (
                "\n".join(f"- {s.name}: {s.description}" for s in owner.registry.specs.values())
                or "(none are installed)"
            )
            return ToolResult.error(f"Unknown subagent type {kind!r}. Available:\n{known}")
        parent = ctx.run
        state = RunState(
            run_id=self.runs.run_id(parent, ctx),
            parent_run_id=parent.run_id,
            agent_type=spec.name,
            metadata={DEPTH.name: (DEPTH.get(parent) or 0) + 1},
        )
        started, _ = await parent.fire(
            SUBAGENT_START, SubagentEvent(run=parent, agent_id=state.run_id, agent_type=spec.name)
        )
        if started.outcome == "stop":
            return ToolResult.error(f"[Subagent: {spec.name}] Not started: {started.reason}")
        prompt = str(args.get("prompt") or "")
        return owner.summary(spec, await self.runs.run(spec, prompt, state, parent))


class ChildRuns(Protocol):
    """Where the `Agent` tool runs a child: `run_id` names the child's run before it starts,
    `run` runs it to its end and gives its final state."""

    def run_id(self, parent: RunView, ctx: ToolContext, /) -> str: ...

    async def run(
        self, spec: AgentSpec, prompt: str, state: RunState, parent: RunView, /
    ) -> RunState: ...


@final
class InProcess:
    """Children run here, as agents of their own (`Subagents.child_agent`); each child's
    final state is kept in `Subagents.states`."""

    def __init__(self, owner: Subagents) -> None:
        self.owner = owner

    def run_id(self, parent: RunView, ctx: ToolContext, /) -> str:
        return uuid.uuid4().hex

    async def run(
        self, spec: AgentSpec, prompt: str, state: RunState, parent: RunView, /
    ) -> RunState:
        owner = self.owner
        owner.parents[state.run_id] = parent
        try:
            result = await owner.child_agent(spec).run_child(prompt, state)
        finally:
            owner.parents.pop(state.run_id, None)
        owner.states.append(result.state)
        return result.state


@final
class _StopBridge:
    """The child's stop hook: asks the parent's subagent_stop hooks whether it may stop."""

    def __init__(self, owner: Subagents, agent_type: str) -> None:
        self.owner = owner
        self.agent_type = agent_type
        self.__name__ = "stop_bridge"

    async def __call__(self, event: StopEvent) -> HookResult | None:
        parent = self.owner.parents.get(event.run.run_id)
        if parent is None:
            return None
        decision, _ = await parent.fire(
            SUBAGENT_STOP,
            SubagentEvent(
                run=parent,
                agent_id=event.run.agent_id,
                agent_type=self.agent_type,
                output=event.output,
                stop_hook_active=event.stop_hook_active,
            ),
        )
        if decision.outcome == "block":
            return HookResult.block(decision.reason or "Keep going.")
        if decision.outcome == "stop":
            return HookResult.stop(decision.reason or "stopped by subagent_stop")
        return None


def _front_matter_hooks(
    registry: AgentRegistry, options: ClaudeHookOptions | None
) -> ComponentHooks | None:
    """The agent files' `hooks:`; the Claude Code layer is loaded only for files that have
    them, as it is heavy to import."""
    files = [(spec.name, spec.source) for spec in registry.specs.values()]
    if not any(declares_hooks(path) for _, path in files):
        return None
    from hookagent.claude._component_hooks import subagent_hooks

    return subagent_hooks(files, options)

"""`AgentBuilder`: the one place an agent is assembled.

Tools and hooks from every capability are collected side by side; installing one capability
never drops what another installed, and two tools with one name are an error naming both
owners. Limits and the error policy are capabilities too, installed by default and replaceable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from os import PathLike
from typing import TYPE_CHECKING, Any, Self, final

from hookagent._agent import Agent
from hookagent._capability import BindsAgent, Capability, FinishesResults
from hookagent._errors import ConfigError
from hookagent._registration import HookRegistrations
from hookagent.hooks._hook import Hook
from hookagent.hooks._registry import HookRegistry
from hookagent.kernel._context import Budgets
from hookagent.models._base import Model
from hookagent.models._resolve import resolve_model
from hookagent.policies._defaults import default_limits, policy_hooks
from hookagent.policies._error_policy import ErrorPolicy
from hookagent.policies._limits import StepLimit, TimeLimit, TokenLimit, ToolCallPresence
from hookagent.spill._results import DEFAULT_MAX_RESULT_CHARS, check_limit
from hookagent.store._base import Store
from hookagent.tools._base import Tool
from hookagent.tools._function import FunctionTool

if TYPE_CHECKING:
    from hookagent.capabilities.structured_output import OutputMode
    from hookagent.claude._bridge import ClaudeHooks

__all__ = ["AgentBuilder"]


class _Unset:
    def __repr__(self) -> str:
        return "<default>"


UNSET: Any = _Unset()


@final
class _ModelAliases(Mapping[str, "str | Model"]):
    """The builder's model aliases as the built agent carries them (`Agent.model_aliases`),
    noting whether a capability read them: aliases nothing reads are a warning."""

    __slots__ = ("_aliases", "read")

    def __init__(self, aliases: Mapping[str, str | Model]) -> None:
        self._aliases = dict(aliases)
        self.read = False

    def __getitem__(self, alias: str) -> str | Model:
        self.read = True
        return self._aliases[alias]

    def __iter__(self) -> Iterator[str]:
        self.read = True
        return iter(self._aliases)

    def __len__(self) -> int:
        self.read = True
        return len(self._aliases)

    def __repr__(self) -> str:
        return repr(self._aliases)


@final
class AgentBuilder(HookRegistrations):
    def __init__(self) -> None:
        self._model: Model | None = None
        self._tools: dict[str, tuple[Tool, str]] = {}
        self._hooks: list[Hook[Any]] = []
        self._capabilities: list[str] = []
        self._system_prompt: str | None = None
        self._settings: dict[str, Any] = {}
        self._budgets = Budgets()
        self._limits: dict[str, Capability | None] = default_limits()
        self._error_policy: ErrorPolicy = ErrorPolicy.default()
        self._installed: list[Capability] = []
        self._model_aliases: dict[str, str | Model] = {}
        self._aliases_unread = False
        """Set by `build` when there are model aliases and no capability read them."""
        self._store: Store | str | PathLike[str] | None = None
        self._durability: str | None = None
        self._max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS
        self._files_root: str | PathLike[str] | None = None

    def model(
        self, model: Model | str, *, base_url: str | None = None, api_key: str | None = None
    ) -> Self:
        """A driver, or a name such as `openai:gpt-4.1-mini`, `anthropic:claude-sonnet-4-5`,
        `openai-compatible:llama3` (with `base_url`) or `scripted:turns.json`."""
        if isinstance(model, str):
            self._model = resolve_model(model, base_url=base_url, api_key=api_key)
        else:
            self._model = model
        return self

    def model_alias(self, alias: str, model: str | Model) -> Self:
        """Run agent files that name `alias` as their model (`sonnet`, `opus`, `haiku`, a
        full Claude id…) on `model`, a `provider:model` name or a `Model`."""
        if not isinstance(alias, str) or not alias.strip() or alias.strip() == "inherit":
            raise ConfigError(
                "an alias is a model name used in agent files, not empty nor `inherit`",
                key="model_alias",
                value=alias,
            )
        if isinstance(model, str) and not model.partition(":")[2]:
            raise ConfigError(
                f"the model for {alias!r} is named provider:model, e.g. openai:gpt-4.1",
                key="model_alias",
                value=model,
            )
        self._model_aliases[alias.strip()] = model
        return self

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the installed capabilities left out or will not honour as written (agent and
        skill files that cannot be read, unmapped model aliases…); complete after `build`."""
        found = [w for c in self._installed for w in getattr(c, "warnings", ())]
        if self._aliases_unread:
            names = ", ".join(self._model_aliases)
            found.append(f"model aliases {names}: no installed capability runs agent files")
        return tuple(found)

    def system_prompt(self, text: str) -> Self:
        self._system_prompt = text
        return self

    def settings(self, **settings: Any) -> Self:
        """Model settings passed with every request (temperature, max_tokens…)."""
        self._settings.update(settings)
        return self

    def tools(self, *tools: Tool | Callable[..., Any]) -> Self:
        for item in tools:
            tool = item if isinstance(item, Tool) else FunctionTool(item)
            self._add_tool(tool, "user")
        return self

    def with_(self, capability: Capability) -> Self:
        """Install a capability: its tools and hooks, together; `build` calls its `bind`
        with the agent, and each run's result goes through its `finish_result`, where it
        has them (see `hookagent._capability`)."""
        if not isinstance(capability, Capability):
            raise ConfigError(
                f"{capability!r} is not a capability (it needs name, tools() and hooks())",
                key="with_",
            )
        for tool in capability.tools():
            self._add_tool(tool, capability.name)
        self._hooks.extend(capability.hooks())
        self._capabilities.append(capability.name)
        self._installed.append(capability)
        return self

    def output_type(
        self, output_type: type[Any], *, mode: OutputMode = "auto", max_retries: int = 3
    ) -> Self:
        """Every run must end in a validated `output_type` (`result.parsed`): through the
        provider's JSON-schema mode where it has one (`mode="auto"`), else a final-answer
        tool; a wrong answer goes back to the model at most `max_retries` times."""
        from hookagent.capabilities.structured_output import StructuredOutput

        return self.with_(StructuredOutput(output_type, mode=mode, max_retries=max_retries))

    def limits(
        self,
        *,
        max_steps: int | None = UNSET,
        max_tokens: int | None = UNSET,
        max_seconds: float | None = UNSET,
        max_cost: float | None = UNSET,
        tool_call_presence: bool = UNSET,
    ) -> Self:
        """Replace the default limits; `None` removes one. `max_cost` (USD, none by default)
        prices each reply with the built-in table; `with_(CostLimit(..., prices=...))` takes
        your own prices."""
        if max_steps is not UNSET:
            self._limits["steps"] = None if max_steps is None else StepLimit(max_steps)
        if max_tokens is not UNSET:
            self._limits["tokens"] = None if max_tokens is None else TokenLimit(max_tokens)
        if max_seconds is not UNSET:
            self._limits["time"] = None if max_seconds is None else TimeLimit(max_seconds)
        if max_cost is not UNSET:
            from hookagent.policies._cost import CostLimit

            self._limits["cost"] = None if max_cost is None else CostLimit(max_cost)
        if tool_call_presence is not UNSET:
            self._limits["presence"] = ToolCallPresence() if tool_call_presence else None
        return self

    def store(
        self, store: Store | str | PathLike[str] | None = None, *, durability: str | None = None
    ) -> Self:
        """Keep runs in a store: sessions, pauses for answers, resumption after a crash.
        A `Store`, a path or `sqlite:///path`, `postgresql://…`, or None for the default
        SQLite file `.hookagent/sessions.db` in the current folder. `durability`, for a
        SQLite store: `"process"` (the default: survives the process dying at any moment)
        or `"power"` (a power loss too, at the cost of a disk sync per tool call)."""
        self._store = store if store is not None else ".hookagent/sessions.db"
        if durability is not None and not isinstance(self._store, str | PathLike):
            raise ConfigError(
                "durability is for a store given by path or URL; give it to the store "
                "itself, e.g. SQLiteStore(path, durability=...)",
                key="store(durability)",
                value=repr(durability),
            )
        self._durability = durability
        return self

    def outputs(
        self,
        *,
        max_result_chars: int | None = UNSET,
        folder: str | PathLike[str] | None = UNSET,
    ) -> Self:
        """Outputs too long for the model. A tool result longer than `max_result_chars`
        (50,000 by default, as in Claude Code; None: no limit) is saved whole and the model
        reads its first 2,000 characters and the file's path; a tool's own
        `max_result_chars` attribute wins. Each run saves into `<folder>/runs/<run_id>/`;
        `folder` defaults to the folder of a SQLite store, else `.hookagent` here."""
        if max_result_chars is not UNSET:
            self._max_result_chars = check_limit(max_result_chars, "outputs(max_result_chars)")
        if folder is not UNSET:
            self._files_root = folder
        return self

    def error_policy(self, policy: ErrorPolicy) -> Self:
        self._error_policy = policy
        return self

    def budgets(self, *, stop_blocks: int = 8, retries: int = 3) -> Self:
        """Convergence budgets: consecutive stop-blocks, and retries per call."""
        self._budgets = Budgets(stop_blocks=stop_blocks, retries=retries)
        return self

    def build(self) -> Agent:
        if self._model is None:
            raise ConfigError("no model: call .model(...) before .build()", key="AgentBuilder")
        registry = HookRegistry(self._policy_hooks())
        for hook in self._hooks:
            registry.add(hook)
        store: Store | None = None
        if isinstance(self._store, str | PathLike):
            from hookagent.store._open import open_store

            store = open_store(self._store, durability=self._durability)
        else:
            store = self._store
        aliases = _ModelAliases(self._model_aliases)
        agent = Agent(
            store=store,
            finishers=[c for c in self._installed if isinstance(c, FinishesResults)],
            model_aliases=aliases,
            model=self._model,
            tools={name: t for name, (t, _) in self._tools.items()},
            registry=registry,
            system_prompt=self._system_prompt,
            settings=self._settings,
            budgets=self._budgets,
            max_result_chars=self._max_result_chars,
            files_root=self._files_root,
        )
        for capability in self._installed:
            if isinstance(capability, BindsAgent):
                capability.bind(agent)
        self._aliases_unread = bool(self._model_aliases) and not aliases.read
        return agent

    def _policy_hooks(self) -> Iterable[Hook[Any]]:
        return policy_hooks(self._limits, self._error_policy)

    def _add_hook(self, hook: Hook[Any]) -> None:
        self._hooks.append(hook)

    def _add_settings(self, claude: ClaudeHooks, files: tuple[str | PathLike[str], ...]) -> None:
        self.with_(claude)

    def _add_tool(self, tool: Tool, owner: str) -> None:
        if not isinstance(tool, Tool):
            raise ConfigError(
                f"{tool!r} is not a tool (it needs name, description, "
                "parameters and an async __call__)",
                key=f"tools of {owner}",
            )
        existing = self._tools.get(tool.name)
        if existing is not None:
            raise ConfigError(
                f"tool {tool.name!r} is registered twice: by {existing[1]} and by {owner}",
                key="tools",
                value=tool.name,
            )
        self._tools[tool.name] = (tool, owner)

"""`RunSetups`: the setups an agent's runs use, each built on first use and kept.

The agent's own; one per output type a run asks for (a `StructuredOutput` installed for that
run only); one per output type and per-run `limits`; and each of those with the live
observer's hooks, for runs someone streams. Building one costs more than a run's first
steps, so none is built twice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from hookagent._errors import ConfigError
from hookagent._run_limits import RunLimits, apply_limits, run_limits
from hookagent._run_setup import RunSetup
from hookagent.hooks._hook import Hook

if TYPE_CHECKING:
    from hookagent._agent import Agent

__all__ = ["RunSetups", "observed"]


@final
class RunSetups:
    def __init__(self, agent: Agent, outputs: tuple[Path, int | None]) -> None:
        self._agent = agent
        self._outputs = outputs
        self.base = RunSetup.of(agent.tools, agent.registry, agent.finishers, outputs)
        """The agent's own setup."""
        self._per_output: dict[type[Any], RunSetup] = {}
        self._per_run: dict[tuple[type[Any] | None, RunLimits], RunSetup] = {}
        self._streamed: dict[int, tuple[RunSetup, RunSetup]] = {}
        """Per setup (kept alive here), the same with the live observer's hooks."""

    def of(
        self, output_type: type[Any] | None, limits: Mapping[str, Any] | None = None
    ) -> RunSetup:
        """The setup of a run asking for `output_type` under `limits`."""
        checked = run_limits(limits)
        if not checked:
            return self._for_output(output_type)
        setup = self._per_run.get((output_type, checked))
        if setup is None:
            base = self._for_output(output_type)
            registry = apply_limits(base.registry, checked)
            setup = RunSetup.of(base.tools, registry, base.finishers, self._outputs)
            self._per_run[(output_type, checked)] = setup
        return setup

    def streamed(self, setup: RunSetup, hooks: Callable[[], Iterable[Hook[Any]]]) -> RunSetup:
        """`setup` with the observer `hooks`, for runs someone streams."""
        found = self._streamed.get(id(setup))
        if found is None:
            found = self._streamed[id(setup)] = (setup, observed(setup, hooks()))
        return found[1]

    def _for_output(self, output_type: type[Any] | None) -> RunSetup:
        if output_type is None:
            return self.base
        setup = self._per_output.get(output_type)
        if setup is None:
            setup = self._per_output[output_type] = self._structured(output_type)
        return setup

    def _structured(self, output_type: type[Any]) -> RunSetup:
        from hookagent.capabilities.structured_output import StructuredOutput

        agent = self._agent
        if any(isinstance(f, StructuredOutput) for f in agent.finishers):
            raise ConfigError(
                "this agent was built with a structured output already; build one "
                "without it to choose the output type per run",
                key="output_type",
            )
        output = StructuredOutput(output_type)
        output.bind(agent)
        tools = dict(agent.tools)
        for tool in output.tools():
            if tool.name in tools:
                raise ConfigError(
                    f"the final-answer tool {tool.name!r} clashes with a tool of that name",
                    key="output_type",
                    value=tool.name,
                )
            tools[tool.name] = tool
        registry = agent.registry.copy()
        for hook in output.hooks():
            registry.add(hook)
        return RunSetup.of(tools, registry, (output, *agent.finishers), self._outputs)


def observed(setup: RunSetup, hooks: Iterable[Hook[Any]]) -> RunSetup:
    """`setup` with the observer `hooks` added to its registry."""
    registry = setup.registry.copy()
    for hook in hooks:
        registry.add(hook)
    return dataclasses.replace(setup, registry=registry)

"""A capability is a hook provider: tools plus hooks, installed together by `with_`.

Beyond `name`, `tools()` and `hooks()` a capability may declare two optional methods, each a
protocol of its own so the builder finds them by what they are, not by probing names:

- `bind(agent)` (`BindsAgent`): called once when the agent is built, with the built agent.
  What a capability adapts to lives there: `agent.model` (a critic or summarizer that
  defaults to the agent's own), `agent.model_aliases` (agent and skill files naming
  `sonnet`…), `agent.tools` and `agent.registry` (children made from the agent).
- `finish_result(result) -> result` (`FinishesResults`): post-processing of every run's
  `RunResult` before the caller gets it (structured output fills `parsed` there), applied
  in the order the capabilities were installed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from hookagent.hooks._hook import Hook
from hookagent.tools._base import Tool

if TYPE_CHECKING:
    from hookagent._agent import Agent
    from hookagent.kernel._result import RunResult

__all__ = ["BindsAgent", "Capability", "FinishesResults"]


@runtime_checkable
class Capability(Protocol):
    """Tools and hooks installed together; optionally `BindsAgent` and `FinishesResults`."""

    @property
    def name(self) -> str:
        """Shown as the source of its tools and hooks in records and errors."""
        ...

    def tools(self) -> Iterable[Tool]: ...

    def hooks(self) -> Iterable[Hook[Any]]: ...


@runtime_checkable
class BindsAgent(Protocol):
    """A capability that adapts to the agent it is installed in."""

    def bind(self, agent: Agent, /) -> None:
        """Called once, when the agent is built (or, for an output type given per run, when
        that run's setup is first made); raise `ConfigError` for what cannot work."""
        ...


@runtime_checkable
class FinishesResults(Protocol):
    """A capability that post-processes every run's result."""

    def finish_result(self, result: RunResult[Any], /) -> RunResult[Any]:
        """The result the caller gets (e.g. `dataclasses.replace(result, parsed=...)`)."""
        ...

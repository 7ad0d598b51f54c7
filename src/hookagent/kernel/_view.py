"""Read-only views of a run, handed to hooks and tools.

Views wrap the live state without copying it, so building one is O(1) whatever the history
length, and they always show the current values.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar, final, overload

from hookagent._messages import Message
from hookagent._usage import Usage
from hookagent.hooks._decision import Decision
from hookagent.hooks._points import HookPoint
from hookagent.kernel._records import StepRecord
from hookagent.kernel._state import RunState, RunStatus
from hookagent.models._base import ToolSpec
from hookagent.spill._files import default_root, run_folder

__all__ = ["ListView", "RunView"]

T = TypeVar("T")
E = TypeVar("E")


class ListView(Sequence[T]):
    """A read-only window onto a sequence that keeps growing (a list, the step table)."""

    __slots__ = ("_items",)

    def __init__(self, items: Sequence[T]) -> None:
        self._items = items

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...
    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def __repr__(self) -> str:
        return f"ListView(len={len(self._items)})"


@final
class RunView:
    """What hooks may read of a run."""

    __slots__ = (
        "_decisions",
        "_fire",
        "_messages",
        "_metadata",
        "_state",
        "_steps",
        "files_root",
        "tool_specs",
    )

    def __init__(
        self,
        state: RunState,
        tool_specs: Sequence[ToolSpec] = (),
        *,
        fire: Callable[[HookPoint[Any], Any], Awaitable[tuple[Decision, Any]]] | None = None,
    ) -> None:
        """`fire`: how `fire` reaches the run's hooks (the run's dispatcher makes its view
        with its own); a view without one cannot fire."""
        self._state = state
        self._fire = fire
        self.tool_specs = tuple(tool_specs)
        """The tools this run offers the model, as the model sees them."""
        self._messages = ListView(state.messages)
        self._steps = ListView(state.steps)
        self._decisions = ListView(state.decisions)
        self._metadata = MappingProxyType(state.metadata)
        self.files_root: Path | None = None
        """Where run folders are made, set by the agent; None: `.hookagent` here."""

    @property
    def run_id(self) -> str:
        return self._state.run_id

    @property
    def files(self) -> Path:
        """This run's folder for what was too long to show the model whole (hook output,
        tool results): `<root>/runs/<run_id>`, made when the first file goes in."""
        root = self.files_root if self.files_root is not None else default_root(None)
        return run_folder(root, self.run_id)

    @property
    def agent_id(self) -> str:
        """The agent this run is: its run id (a subagent's run has its own)."""
        return self._state.run_id

    @property
    def agent_type(self) -> str:
        """`main` for a top-level run, the subagent's type for a child run."""
        return self._state.agent_type

    async def fire(self, point: HookPoint[E], event: E) -> tuple[Decision, E]:
        """Fire a hook point from a tool or a hook: capabilities fire the points they own
        (a subagent tool fires `subagent_start`, summarization fires `before_compact`)."""
        if self._fire is None:
            raise RuntimeError("this view belongs to no running run")
        result: tuple[Decision, E] = await self._fire(point, event)
        return result

    @property
    def parent_run_id(self) -> str | None:
        return self._state.parent_run_id

    @property
    def session_id(self) -> str | None:
        return self._state.session_id

    @property
    def status(self) -> RunStatus:
        return self._state.status

    @property
    def messages(self) -> Sequence[Message]:
        return self._messages

    @property
    def steps(self) -> Sequence[StepRecord]:
        return self._steps

    @property
    def step_count(self) -> int:
        return len(self._state.steps)

    @property
    def last_step(self) -> StepRecord | None:
        steps = self._state.steps
        return steps[-1] if steps else None

    @property
    def decisions(self) -> Sequence[Decision]:
        return self._decisions

    @property
    def usage(self) -> Usage:
        return self._state.usage

    def spend(self, usage: Usage, *, model: str | None = None) -> None:
        """Count a model call a hook made for this run (a Claude Code prompt or agent
        handler's) in the run's usage, which token limits and `RunResult.usage` read, and
        in `hook_spends` under `model` (the name its reply gives), which a cost limit prices."""
        state = self._state
        state.usage = state.usage + usage
        state.hook_spends.append((model, usage))

    @property
    def hook_spends(self) -> Sequence[tuple[str | None, Usage]]:
        """The model calls hooks made for this run, in order: (model, usage)."""
        return ListView(self._state.hook_spends)

    @property
    def metadata(self) -> Mapping[str, Any]:
        return self._metadata

    @property
    def elapsed(self) -> float:
        return self._state.elapsed

    @property
    def output(self) -> str | None:
        return self._state.output

    @property
    def stop_reason(self) -> str | None:
        return self._state.stop_reason

    @property
    def stop_message(self) -> str | None:
        return self._state.stop_message

    @property
    def error(self) -> str | None:
        return self._state.error

    @property
    def stop_block_streak(self) -> int:
        return self._state.stop_block_streak

    def __repr__(self) -> str:
        return f"RunView(run_id={self.run_id!r}, steps={self.step_count}, status={self.status})"

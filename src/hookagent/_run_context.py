"""`run_context`: what the kernel runs one run with, wired the same way for every driver.

An agent's own runs (in memory or kept in a store) and a backend that runs the kernel
itself (a Temporal workflow) both build a run's dispatcher and context here, so the two
cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from hookagent._run_setup import RunSetup
from hookagent.hooks._engine import fold
from hookagent.hooks._hook import Hook
from hookagent.hooks._points import SHOULD_CONTINUE, STOP, HookPoint
from hookagent.hooks._watch import HookWatch
from hookagent.kernel._approval import Approver
from hookagent.kernel._context import RunContext
from hookagent.kernel._dispatch import Dispatcher
from hookagent.kernel._seams import RunLayer, settle_directly
from hookagent.kernel._state import RunState
from hookagent.models._base import OnDelta
from hookagent.policies._limits import quiet_continue, quiet_stop

if TYPE_CHECKING:
    from hookagent._agent import Agent

__all__ = ["run_context"]


def _at(
    hooks: Dispatcher, point: HookPoint[Any]
) -> tuple[tuple[Hook[Any], ...] | None, Callable[[], tuple[Hook[Any], ...] | None]]:
    """The hooks at `point` now, and how to read them again (with no Python frame)."""
    return hooks.wants(point), partial(hooks.wants, point)


def run_context(
    agent: Agent,
    state: RunState,
    setup: RunSetup,
    *,
    layer: RunLayer | None = None,
    approver: Approver | None = None,
    watch: HookWatch | None = None,
    on_delta: OnDelta | None = None,
) -> RunContext:
    """`agent`'s model, tools and hooks as `setup` has them, over `state`; through `layer`'s
    seams when a layer keeps the run (a store, a durable execution engine)."""
    hooks = Dispatcher(
        setup.registry,
        state,
        approver=approver,
        watch=watch,
        tool_specs=setup.specs,
        fold_runner=fold if layer is None else layer.fold,
        settle=settle_directly if layer is None else layer.settle,
    )
    hooks.view.files_root = setup.outputs.root
    return RunContext(
        state=state,
        view=hooks.view,
        hooks=hooks,
        model=agent.model if layer is None else layer.model(agent.model),
        system_prompt=agent.system_prompt,
        settings=agent.settings,
        budgets=agent.budgets,
        on_delta=on_delta,
        tools=setup.tools if layer is None else layer.tools(setup.tools),
        traits=setup.traits,
        tool_specs=setup.specs,
        outputs=setup.outputs if layer is None or layer.spills_here else None,
        calls=None if layer is None else layer.calls,
        turn=None if layer is None else layer.turn,
        kept=layer is not None,
        elapsed_before=state.elapsed,
        # a layer that keeps the run journals every fold, so its runs fold every step
        quiet_continue=None if layer is not None else quiet_continue(*_at(hooks, SHOULD_CONTINUE)),
        quiet_stop=None if layer is not None else quiet_stop(*_at(hooks, STOP)),
    )

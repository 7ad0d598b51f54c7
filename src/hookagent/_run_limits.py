"""Limits for one run: `agent.run(..., limits={"max_steps": 5})` replaces the agent's step,
token, time or cost limit for that run only, as `AgentBuilder.limits` would for every run.

The agent's limit hooks are named (`step_limit`, `token_limit`, …, source `limits`), so a run's
registry is the agent's with those hooks swapped; the result is cached per set of limits.
A run's `max_cost` prices models as the agent's own `CostLimit` does (its `prices`, as
`--price` gives them, its `unknown` mode and its advice), else by the built-in table; or
give a `CostLimit` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from hookagent._errors import ConfigError, check_mapping
from hookagent.hooks._hook import Hook
from hookagent.hooks._registry import HookRegistry
from hookagent.policies._limits import StepLimit, TimeLimit, TokenLimit

__all__ = ["RunLimits", "apply_limits", "run_limits"]

RunLimits = tuple[tuple[str, Any], ...]
"""A run's limits, checked and in a fixed order: hashable, so run setups can be cached."""


def _cost(max_usd: Any, registry: HookRegistry | None = None) -> Iterable[Hook[Any]]:
    from hookagent.policies._cost import CostLimit

    if isinstance(max_usd, CostLimit):
        return max_usd.hooks()
    for hook in registry or ():
        owner = getattr(hook.fn, "__self__", None)  # the capability whose method it is
        if hook.source == "limits" and isinstance(owner, CostLimit):
            return owner.with_max(max_usd).hooks()
    return CostLimit(max_usd).hooks()


_KINDS: dict[str, tuple[tuple[str, ...], Callable[..., Iterable[Hook[Any]]]]] = {
    "max_steps": (("step_limit",), lambda v, _=None: StepLimit(v).hooks()),
    "max_tokens": (("token_limit",), lambda v, _=None: TokenLimit(v).hooks()),
    "max_seconds": (("time_limit",), lambda v, _=None: TimeLimit(v).hooks()),
    "max_cost": (("cost_meter", "cost_limit"), _cost),
}


def run_limits(limits: Mapping[str, Any] | None) -> RunLimits:
    """Check a run's `limits` (keys `max_steps`, `max_tokens`, `max_seconds`, `max_cost`: a
    number or a `CostLimit`; None removes that limit for the run) and put them in a fixed
    order."""
    if limits is None:
        return ()
    for key, value in check_mapping(limits, key="limits", shape="such as {'max_steps': 5}").items():
        if key not in _KINDS:
            raise ConfigError(
                f"unknown limit {key!r}; known: {', '.join(_KINDS)}",
                key=f"limits[{key!r}]",
                value=key,
            )
        if value is not None:
            try:
                list(_KINDS[key][1](value))
            except ConfigError as exc:
                message = str(exc).split(": ", 1)[-1]
                raise ConfigError(message, key=f"limits[{key!r}]", value=value) from None
    return tuple(sorted(limits.items()))


def apply_limits(registry: HookRegistry, limits: RunLimits) -> HookRegistry:
    """A copy of `registry` with the limits named in `limits` replaced."""
    run = registry.copy()
    for key, value in limits:
        names, hooks = _KINDS[key]
        made = list(hooks(value, registry)) if value is not None else []
        run.remove(lambda hook, names=names: hook.source == "limits" and hook.name in names)
        for hook in made:
            run.add(hook)
    return run

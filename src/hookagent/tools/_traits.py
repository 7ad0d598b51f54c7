"""`ToolTraits`: what the runtime needs to know of a tool beyond calling it.

A tool declares its optional traits by having the attribute (see `Tool`). A structural
protocol cannot give a class written elsewhere their defaults, so `traits_of` reads every
trait once, when the tool is registered, fills in the default for each one missing and
refuses a wrong one with a `ConfigError` naming the tool and the attribute: a typo'd value
never turns into a silent default at the moment it matters (a crash, a concurrent step).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.tools._base import RECONCILE_TIMEOUT, Reconciled, Tool

__all__ = ["DEFAULT_TRAITS", "Prepare", "Reconcile", "ToolTraits", "tool_traits", "traits_of"]

Prepare = Callable[[Mapping[str, Any]], Mapping[str, Any]]
Reconcile = Callable[[Mapping[str, Any], str], "Reconciled | Awaitable[Reconciled]"]


@record
class ToolTraits:
    """A tool's optional traits, each as declared or its default."""

    concurrent: bool = False
    """Calls may run at the same time as the neighbouring calls of a step whose tools are
    concurrent too."""
    idempotent: bool = False
    """Running a call twice does no harm: a call left in doubt by a crash runs again."""
    prepare: Prepare | None = None
    """Puts arguments in canonical form before hooks see them (`PreparesArgs`)."""
    reconcile: Reconcile | None = None
    """Tells whether a call left in doubt took effect (`Reconciles`)."""
    reconcile_timeout: float = RECONCILE_TIMEOUT
    """Seconds `reconcile` may take."""


DEFAULT_TRAITS: Final = ToolTraits()
"""The traits of a tool that declares none."""


def traits_of(tool: Tool) -> ToolTraits:
    """`tool`'s traits, checked; a `ConfigError` names the tool and the attribute at fault."""
    concurrent = _flag(tool, "concurrent")
    idempotent = _flag(tool, "idempotent")
    prepare = _method(tool, "prepare")
    reconcile = _method(tool, "reconcile")
    timeout = _timeout(tool, reconcile is not None)
    if not (concurrent or idempotent) and prepare is None and reconcile is None:
        return DEFAULT_TRAITS
    return ToolTraits(
        concurrent=concurrent,
        idempotent=idempotent,
        prepare=prepare,
        reconcile=reconcile,
        reconcile_timeout=timeout,
    )


def tool_traits(tools: Mapping[str, Tool]) -> dict[str, ToolTraits]:
    """Per tool name, its traits."""
    return {name: traits_of(tool) for name, tool in tools.items()}


def _flag(tool: Tool, attribute: str) -> bool:
    value = getattr(tool, attribute, False)
    if not isinstance(value, bool):
        raise _bad(tool, attribute, f"must be True or False, not {value!r}", value)
    return value


def _method(tool: Tool, attribute: str) -> Any:
    """The bound method, or None where the tool has none (None stands for none, as a
    protocol check takes it)."""
    value = getattr(tool, attribute, None)
    if value is not None and not callable(value):
        raise _bad(tool, attribute, f"must be a method, not {value!r}", value)
    return value


def _timeout(tool: Tool, reconciles: bool) -> float:
    value = getattr(tool, "reconcile_timeout", None)
    if value is None:
        return RECONCILE_TIMEOUT
    if not reconciles:
        raise _bad(tool, "reconcile_timeout", "is set but the tool has no reconcile method", value)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise _bad(
            tool, "reconcile_timeout", f"must be a number of seconds above 0, not {value!r}", value
        )
    return float(value)


def _bad(tool: Tool, attribute: str, problem: str, value: object) -> ConfigError:
    return ConfigError(problem, key=f"tool {tool.name!r} {attribute}", value=value)

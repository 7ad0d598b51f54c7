"""`ToolGate.wrap`'s wrappers: a function's calls, arguments bound to their names, sent
through a gate; an async function gets an async wrapper, a sync one a sync wrapper."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hookagent._errors import ConfigError

if TYPE_CHECKING:
    from hookagent.gate._gate import ToolGate

__all__ = ["gated", "is_async"]


def gated(
    gate: ToolGate,
    fn: Callable[..., Any],
    *,
    name: str | None,
    raise_errors: bool,
    max_result_chars: int | None,
    blocking: bool,
) -> Callable[..., Any]:
    """`fn` with every call going through `gate` as tool `name` (default: the function's
    name), returning `GateResult.value`; see `ToolGate.wrap`."""
    tool_name = name or getattr(fn, "__name__", None) or type(fn).__name__
    bind = _binder(fn, tool_name)
    options: dict[str, Any] = {
        "execute": fn,
        "raise_errors": raise_errors,
        "max_result_chars": max_result_chars,
        "blocking": blocking,
    }
    if is_async(fn):

        @functools.wraps(fn)
        async def wrapped_async(*args: Any, **kwargs: Any) -> Any:
            return (await gate.call(tool_name, bind(args, kwargs), **options)).value

        return wrapped_async

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return gate.call_sync(tool_name, bind(args, kwargs), **options).value

    return wrapped


def is_async(fn: Any) -> bool:
    """Whether calling `fn` starts a coroutine (an async function or `async __call__`)."""
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004  # callable objects with async __call__
    return call is not None and inspect.iscoroutinefunction(call)


def _binder(
    fn: Callable[..., Any], tool_name: str
) -> Callable[[tuple[Any, ...], dict[str, Any]], dict[str, Any]]:
    """Turns a wrapper's (args, kwargs) into the call's named arguments."""
    try:
        signature: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = None
    if signature is not None:
        unnamed = [
            p.name
            for p in signature.parameters.values()
            if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.VAR_POSITIONAL)
        ]
        if unnamed:
            raise ConfigError(
                f"a gated function takes its arguments by name; {', '.join(unnamed)} cannot be",
                key=f"wrap {tool_name}",
            )

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        if signature is None:
            if args:
                raise TypeError(f"{tool_name}() takes its arguments by name")
            return kwargs
        named: dict[str, Any] = {}
        for key, value in signature.bind(*args, **kwargs).arguments.items():
            if signature.parameters[key].kind is inspect.Parameter.VAR_KEYWORD:
                named.update(value)
            else:
                named[key] = value
        return named

    return bind

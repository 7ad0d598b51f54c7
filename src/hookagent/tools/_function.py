"""`@tool`: a typed function (sync or async) becomes a tool with a JSON schema.

The signature is turned into a pydantic model once, at decoration time; each call validates
the model's arguments against it, and a validation failure becomes an error result naming
every bad field, so the model can correct itself. A function whose parameters are all plain
`str`, `int`, `float` or `bool` (what most tools take) gets arguments of exactly those types
passed straight through, as validation would pass them; anything else (a missing or extra
argument, a `"3"` for an `int`, a constrained type) goes through the model.

A plain `def` runs on a worker thread (`hookagent._threads`), so a slow one never stalls the
event loop: streamed output, hook timeouts, lease renewal and cancellation go on meanwhile.
`blocking=False` runs it on the loop instead, for a function that must run on the loop's
thread (it uses objects bound to it, such as an `sqlite3` connection made there) or is so
quick that the thread hop (tens of µs) would be most of its cost.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, cast, get_type_hints, overload

from hookagent._errors import ConfigError
from hookagent._threads import in_thread
from hookagent.tools._base import (
    INHERIT,
    RECONCILE_TIMEOUT,
    Reconciled,
    ToolContext,
    ToolResult,
    text_result,
)

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

__all__ = ["FunctionTool", "ReconcilingTool", "tool"]

ToolFn = Callable[..., Any]
ReconcileFn = Callable[[Mapping[str, Any], str], "Reconciled | Awaitable[Reconciled]"]


class FunctionTool:
    """A tool backed by a Python function."""

    __slots__ = (
        "_args_model",
        "_ctx_param",
        "_fn",
        "_is_async",
        "_plain",
        "blocking",
        "description",
        "max_result_chars",
        "name",
        "parameters",
    )

    def __init__(
        self,
        fn: ToolFn,
        *,
        name: str | None = None,
        description: str | None = None,
        blocking: bool = True,
        max_result_chars: int | None = INHERIT,
    ):
        self._fn = fn
        self.name = name or fn.__name__
        self.description = description or inspect.getdoc(fn) or self.name
        self._is_async = inspect.iscoroutinefunction(fn)
        if self._is_async and not blocking:
            raise ConfigError(
                "blocking=False is for sync functions; an async one runs on the loop already",
                key=f"tool {self.name}",
            )
        self.blocking = blocking
        """A sync function runs on a worker thread (True) or on the event loop (False)."""
        self.max_result_chars = max_result_chars
        """The most characters of a result the model reads (None: no limit); a longer one
        is saved whole and previewed. `INHERIT`: the agent's `max_result_chars`."""
        self._ctx_param, self._args_model = _args_model_for(fn, self.name)
        self._plain = _plain_fields(self._args_model)
        schema = self._args_model.model_json_schema()
        schema.pop("title", None)
        self.parameters: Mapping[str, Any] = schema

    def __repr__(self) -> str:
        return f"FunctionTool({self.name!r})"

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext, /) -> ToolResult:
        plain = self._plain
        kwargs = _as_given(plain, args) if plain is not None else None
        if kwargs is None:
            checked = self._validated(args)
            if isinstance(checked, ToolResult):
                return checked
            kwargs = checked
        if self._ctx_param is not None:
            kwargs[self._ctx_param] = ctx
        if self._is_async:
            value = await self._fn(**kwargs)
        elif self.blocking:
            value = await in_thread(self._fn, **kwargs)
        else:
            value = self._fn(**kwargs)
        if type(value) is str:  # most results: no awaitable test, no generic conversion
            return text_result(value, value)
        if not self._is_async and inspect.isawaitable(value):  # a def that returns one
            value = await value
        return ToolResult.of(value)

    def _validated(self, args: Mapping[str, Any]) -> dict[str, Any] | ToolResult:
        """The keyword arguments as validation makes them, or the error result naming
        every bad field."""
        from pydantic import ValidationError

        try:
            parsed = self._args_model.model_validate(dict(args))
        except ValidationError as exc:
            return ToolResult.error(_describe_validation(self.name, exc))
        return {key: getattr(parsed, key) for key in type(parsed).model_fields}


def _args_model_for(fn: ToolFn, tool_name: str) -> tuple[str | None, type[BaseModel]]:
    from pydantic import BaseModel, ConfigDict, create_model  # lazily: keeps imports fast

    try:
        hints = get_type_hints(fn, include_extras=True)  # keeps Annotated constraints
    except (NameError, TypeError) as exc:
        raise ConfigError(
            f"cannot read the type hints of {fn.__qualname__}: {exc}", key=f"tool {tool_name}"
        ) from exc
    ctx_param: str | None = None
    fields: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ConfigError(
                f"*args and **kwargs are not supported (parameter {param.name!r})",
                key=f"tool {tool_name}",
            )
        annotation = hints.get(param.name, Any)
        if annotation is ToolContext:
            ctx_param = param.name
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, default)
    model = create_model(f"{tool_name}_args", __config__=ConfigDict(extra="forbid"), **fields)
    return ctx_param, cast(type[BaseModel], model)


_PLAIN: Final = (str, int, float, bool)
_REQUIRED: Final = object()
Plain = tuple[tuple[str, type, Any], ...]
"""Per parameter: its name, its plain type, and its default (`_REQUIRED` if none)."""


def _plain_fields(model: type[BaseModel]) -> Plain | None:
    """The parameters, if every one is a plain type with no constraint and a default that
    validation would pass as it is (None, or a value of that type); else None."""
    plain: list[tuple[str, type, Any]] = []
    for name, field in model.model_fields.items():
        kind = field.annotation
        if kind not in _PLAIN or field.metadata or field.alias or field.default_factory:
            return None
        default = field.default
        if field.is_required():
            default = _REQUIRED
        elif default is not None and type(default) is not kind:
            return None
        plain.append((name, cast(type, kind), default))
    return tuple(plain)


def _as_given(plain: Plain, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """The keyword arguments when each argument has exactly its parameter's type (`True` is
    no `int` here) and none is missing or unknown; None sends the call through validation.
    One pass over the parameters: every call of a plain tool pays it."""
    kwargs: dict[str, Any] = {}
    given = 0
    for name, kind, default in plain:
        value = args.get(name, _REQUIRED)
        if value is _REQUIRED:
            if default is _REQUIRED:
                return None
            kwargs[name] = default
        elif type(value) is kind:
            kwargs[name] = value
            given += 1
        else:
            return None
    return kwargs if given == len(args) else None  # fewer taken than given: unknown ones


def _describe_validation(tool_name: str, exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "(arguments)"
        problems.append(f"{where}: {error['msg']}")
    return f"Invalid arguments for tool {tool_name!r}: " + "; ".join(problems)


@overload
def tool(fn: ToolFn, /) -> FunctionTool: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    blocking: bool = True,
    reconcile: ReconcileFn | None = None,
    max_result_chars: int | None = INHERIT,
) -> Callable[[ToolFn], FunctionTool]: ...
def tool(
    fn: ToolFn | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    blocking: bool = True,
    reconcile: ReconcileFn | None = None,
    max_result_chars: int | None = INHERIT,
) -> FunctionTool | Callable[[ToolFn], FunctionTool]:
    """Make a tool from a typed function; a `ToolContext` parameter receives the call context.
    A sync function runs on a worker thread unless `blocking=False` (see the module).
    `reconcile(args, key)` settles a call left in doubt by a crash (see `Reconciles`).
    `max_result_chars` bounds what the model reads of a result (None: no bound); by default
    the agent's `max_result_chars` applies."""
    options: dict[str, Any] = {
        "name": name,
        "description": description,
        "blocking": blocking,
        "max_result_chars": max_result_chars,
    }

    def make(f: ToolFn) -> FunctionTool:
        if reconcile is None:
            return FunctionTool(f, **options)
        return ReconcilingTool(f, reconcile, **options)

    return make(fn) if fn is not None else make


class ReconcilingTool(FunctionTool):
    """A function tool with a `reconcile` (a `Reconciles` tool); `reconcile_timeout` may be
    set on it (seconds, default `RECONCILE_TIMEOUT`)."""

    __slots__ = ("reconcile", "reconcile_timeout")

    def __init__(self, fn: ToolFn, reconcile: ReconcileFn, **options: Any) -> None:
        super().__init__(fn, **options)
        if not callable(reconcile):
            raise ConfigError(
                f"reconcile must be a function (args, key), not {reconcile!r}",
                key=f"tool {self.name}",
            )
        self.reconcile = reconcile
        self.reconcile_timeout = RECONCILE_TIMEOUT

"""The exception tree.

Misuse (a bad builder call, an invalid settings or script file) is split from failures at run
time, so callers can catch one without the other::

    HookagentError
    ├── ConfigError          misuse: names the file, key and value at fault
    └── RunError             something failed while a run was executing
        ├── HookError        a hook broke its contract: names the hook and the point
        ├── ToolError        a tool failed in a way that is not a result for the model
        ├── ModelError       a model call failed: provider, model, status, retries
        ├── ApprovalError    a hook asked for a human and none could answer
        └── StoreError       persisting or loading a run failed
            └── LeaseLost    another worker took the run over: this process stops

Decisions are values (`HookResult`), never exceptions; these are for bugs and broken input.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "ApprovalError",
    "ConfigError",
    "HookError",
    "HookagentError",
    "LeaseLost",
    "ModelError",
    "RunError",
    "StoreError",
    "ToolError",
    "check_choice",
    "check_mapping",
]


class HookagentError(Exception):
    """Root of every error hookagent raises on purpose."""


class ConfigError(HookagentError):
    """The runtime was set up wrongly: a builder call, a settings file, a script file."""

    def __init__(
        self, message: str, *, file: str | None = None, key: str | None = None, value: object = None
    ) -> None:
        where = ", ".join(part for part in (file, key) if part)
        super().__init__(f"{where}: {message}" if where else message)
        self.file, self.key, self.value = file, key, value


def check_choice(value: object, choices: Iterable[object], *, key: str, what: str = "") -> None:
    """A `ConfigError` at `key` unless `value` is one of `choices`; the message names them all
    (`what`, when given, names the setting within `key`)."""
    allowed = tuple(choices)
    if value not in allowed:
        names = [repr(choice) for choice in allowed]
        listed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
        subject = f"{what} must" if what else "must"
        raise ConfigError(f"{subject} be {listed}, not {value!r}", key=key, value=value)


def check_mapping(value: object, *, key: str, shape: str) -> Mapping[Any, Any]:
    """`value`, or a `ConfigError` at `key` unless it is a mapping; `shape` says which (`such
    as {'max_steps': 5}`, `of names to servers`)."""
    if not isinstance(value, Mapping):
        raise ConfigError(f"must be a mapping {shape}, not {value!r}", key=key, value=value)
    return value


class RunError(HookagentError):
    """A failure while a run executes; the run's recorded state stays intact."""


class HookError(RunError):
    """A hook broke its contract (an illegal decision, a garbage return value) or failed."""

    def __init__(self, message: str, *, hook: str, point: str) -> None:
        super().__init__(f"hook {hook} at {point}: {message}")
        self.hook = hook
        self.point = point


class ToolError(RunError):
    """A tool raised instead of returning a result."""

    def __init__(self, message: str, *, tool: str, call_id: str | None = None) -> None:
        super().__init__(f"tool {tool}: {message}")
        self.tool = tool
        self.call_id = call_id


class ModelError(RunError):
    """A model call failed after the retries its policy allowed."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        model: str,
        status: int | None = None,
        retries: int = 0,
        timed_out: bool = False,
        transient: bool | None = None,
        retry_after: float | None = None,
    ) -> None:
        status_part = f" (HTTP {status})" if status is not None else ""
        super().__init__(f"{provider}:{model}{status_part}: {message}")
        self.provider, self.model, self.status, self.retries = provider, model, status, retries
        self.timed_out = timed_out
        """The request timed out on the client side (no HTTP status to tell)."""
        self._transient = transient
        self.retry_after = retry_after
        """Seconds the provider asked to wait before trying again (its `Retry-After`)."""

    @property
    def transient(self) -> bool:
        """Whether trying again may succeed: timeouts, lost connections, 408/409/429 and 5xx.
        An auth failure or a bad request fails the same way every time."""
        if self._transient is not None:
            return self._transient
        if self.timed_out:
            return True
        return self.status is not None and (self.status >= 500 or self.status in (408, 409, 429))


class ApprovalError(RunError):
    """A hook returned `ask` but nothing was configured to answer it."""


class StoreError(RunError):
    """The run store could not persist or load a run."""


class LeaseLost(StoreError):
    """The run's lease passed to another worker (this one's ran out while it was frozen,
    blocked or cut off, and the run was claimed): nothing was written, and this process must
    run nothing more for the run, which goes on under `holder`. Not an error of the run, so
    the error policy never sees it; it ends the call that was running the run."""

    def __init__(self, run_id: str, *, worker: str, holder: str | None, where: str = "") -> None:
        if holder is None:
            taken = "the run was taken from it"
        elif holder == worker:
            taken = f"another process claimed the run under the same name {holder}"
        else:
            taken = f"{holder} took the run over"
        at = f" ({where})" if where else ""
        super().__init__(
            f"run {run_id}: lease lost: {worker} no longer holds it, {taken}; this process "
            f"stopped without writing or running anything more{at}"
        )
        self.run_id = run_id
        self.worker = worker
        self.holder = holder
        """Who holds (or last held) the run's lease now."""

"""`HookResult`: the one value every hook returns, and the rules that combine several.

Precedence when hooks of one point disagree: ``stop > block > ask > retry/continue > modify >
proceed``. Context texts accumulate in order. These rules live here, beside the type, and are
property-tested in ``tests/hooks/test_result_properties.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field, replace
from types import MappingProxyType
from typing import Any, Final, Literal

from hookagent._record import record

__all__ = ["AskSpec", "HookResult", "Kind", "RANK", "StopReason"]

Kind = Literal["proceed", "retry", "continue", "ask", "block", "stop"]
"""The decision a result carries; `modify` and `context` ride along on any of them."""

StopReason = Literal[
    "completed",
    "steps_limit",
    "token_limit",
    "time_limit",
    "cost_limit",
    "retry_limit",
    "error",
    "guard",
    "user_requested",
    "hook_stop",
]

RANK: Final[Mapping[Kind, int]] = MappingProxyType(
    {"proceed": 0, "retry": 2, "continue": 2, "ask": 3, "block": 4, "stop": 5}
)
"""Precedence of decisions; `modify` sits at 1, between proceed and retry/continue."""

_NO_CHANGES: Final[Mapping[str, Any]] = MappingProxyType({})


@record
class AskSpec:
    """A question for a human, with what to do if nobody answers in time."""

    question: str
    options: tuple[str, ...] = ()
    timeout: float | None = None
    default: Literal["approve", "deny"] = "deny"


@record
class HookResult:
    """A hook's verdict. Build it with the named constructors, never by hand."""

    kind: Kind = "proceed"
    changes: Mapping[str, Any] = field(default_factory=lambda: _NO_CHANGES)
    """Writable event fields to replace (`metadata` merges key by key instead)."""
    contexts: tuple[str, ...] = ()
    """Text for the model, delivered next to what this point feeds it."""
    reason: str | None = None
    message: str | None = None
    """`continue_`: the next instruction; `retry`: feedback for the model."""
    ask_spec: AskSpec | None = None
    stop_reason: StopReason = "hook_stop"
    by: str | None = None
    """Which part of a composite hook decided (a settings-file handler, a rule), for records."""
    error: str | None = None
    """What failed inside a composite hook that still answered (a settings-file handler that
    exited 1 or timed out): recorded in its vote, as a raising hook's error is."""

    # -- constructors -----------------------------------------------------------------
    @classmethod
    def proceed(cls) -> HookResult:
        return PROCEED

    @classmethod
    def modify(cls, **changes: Any) -> HookResult:
        """Replace writable fields of the event, e.g. ``modify(args={...})``."""
        return cls(changes=MappingProxyType(dict(changes)))

    @classmethod
    def context(cls, text: str) -> HookResult:
        return cls(contexts=(text,))

    @classmethod
    def block(cls, reason: str) -> HookResult:
        return cls(kind="block", reason=reason)

    @classmethod
    def ask(
        cls,
        question: str,
        *,
        options: Sequence[str] = (),
        timeout: float | None = None,
        default: Literal["approve", "deny"] = "deny",
    ) -> HookResult:
        spec = AskSpec(question=question, options=tuple(options), timeout=timeout, default=default)
        return cls(kind="ask", reason=question, ask_spec=spec)

    @classmethod
    def retry(cls, reason: str, feedback: str | None = None) -> HookResult:
        return cls(kind="retry", reason=reason, message=feedback)

    @classmethod
    def continue_(cls, reason: str, message: str | None = None) -> HookResult:
        return cls(kind="continue", reason=reason, message=message)

    @classmethod
    def stop(cls, reason: str, *, stop_reason: StopReason = "hook_stop") -> HookResult:
        return cls(kind="stop", reason=reason, stop_reason=stop_reason)

    # -- chaining ---------------------------------------------------------------------
    def with_context(self, text: str) -> HookResult:
        return replace(self, contexts=(*self.contexts, text))

    def decided_by(self, part: str) -> HookResult:
        return replace(self, by=part)

    def with_error(self, text: str) -> HookResult:
        return replace(self, error=text)

    def with_changes(self, **changes: Any) -> HookResult:
        return replace(self, changes=MappingProxyType({**self.changes, **changes}))

    # -- reading ----------------------------------------------------------------------
    @property
    def rank(self) -> int:
        if self.kind == "proceed" and self.changes:
            return 1
        return RANK[self.kind]

    @property
    def is_final(self) -> bool:
        """A final decision ends the fold; only `always` hooks still run after it."""
        return self.kind in ("stop", "block")

    @property
    def label(self) -> str:
        """The decision as shown in records: the kind, or `modify` / `context`."""
        if self.kind != "proceed":
            return self.kind
        if self.changes:
            return "modify"
        return "context" if self.contexts else "proceed"


PROCEED: Final = HookResult()

"""Decision records: what every fold decided, who voted, and what changed.

"Why was this blocked?" always has an answer naming the hook. Records are small frozen values;
a fold in which no hook ran leaves none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Any, Final

from hookagent._record import record
from hookagent.hooks._result import StopReason

__all__ = ["NO_CHANGES", "Decision", "Vote", "diff"]

NO_CHANGES: Final[Mapping[str, Any]] = MappingProxyType({})


@record
class Vote:
    """One hook's answer within a fold (hooks that returned `None` cast no vote)."""

    hook: str
    decision: str
    reason: str | None = None
    changes: Mapping[str, Any] = field(default_factory=lambda: NO_CHANGES)
    """Field → small diff of what the hook changed."""
    contexts: tuple[str, ...] = ()
    duration: float = 0.0
    error: str | None = None
    """Set when the hook raised or timed out; `decision` then says what its failure mode did."""
    by: str | None = None
    """The part of the hook that decided, when it is a composite (e.g. a settings handler)."""


@record
class Decision:
    point: str
    run_id: str
    step: int
    call_id: str | None
    outcome: str
    """proceed | modify | context | retry | continue | ask | block | stop; at the
    `reconcile` point (a tool settling a call in doubt): done | not_done | unknown."""
    reason: str | None = None
    hook: str | None = None
    """The hook whose vote decided the outcome (or the last one to modify)."""
    votes: tuple[Vote, ...] = ()
    ran: int = 0
    duration: float = 0.0
    contexts: tuple[str, ...] = ()
    stop_reason: StopReason | None = None
    message: str | None = None
    answer: str | None = None
    """For an `ask`: what the human (or the default) answered."""
    by: str | None = None
    """The part of the deciding hook that decided, when it says (see `Vote.by`)."""

    @property
    def changed(self) -> bool:
        return any(vote.changes for vote in self.votes)


def diff(before: Any, after: Any, *, limit: int = 200) -> Any:
    """A small description of a change: per key for mappings, before → after otherwise."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        out: dict[str, Any] = {}
        for key in sorted({*before, *after}, key=str):
            old, new = before.get(key, _MISSING), after.get(key, _MISSING)
            if old != new:
                out[str(key)] = {"before": _short(old, limit), "after": _short(new, limit)}
        return out
    return {"before": _short(before, limit), "after": _short(after, limit)}


class _Missing:
    def __repr__(self) -> str:
        return "<absent>"


_MISSING: Any = _Missing()


def _short(value: Any, limit: int) -> Any:
    if value is _MISSING:
        return None
    if isinstance(value, str | int | float | bool) or value is None:
        return value if not isinstance(value, str) or len(value) <= limit else value[:limit] + "…"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"

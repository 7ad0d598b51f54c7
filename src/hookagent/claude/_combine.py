"""Merge the verdicts of every handler that ran for one event (CLAUDE_HOOKS §8).

Every verdict counts, in merge order (§4.2). The strongest decision wins: deny > block >
defer > ask > allow, and no decision doesn't vote; several handlers giving the winning decision
join their reasons. Contexts, system messages and errors are all kept, in order. An
`updatedInput` counts only from a handler that said allow, ask or nothing; of several, the
last in merge order wins and the disagreement is noted, or, with `"deny"`, the call is refused.
Background (`async`) handlers never vote: only their texts are kept (§5.5).
The rules are property-tested in tests/claude/test_combine.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final, Literal

from hookagent.claude._model import Combined, Decision, HandlerSpec, HandlerVerdict

__all__ = ["RANK", "UpdatedInputConflict", "combine"]

UpdatedInputConflict = Literal["last_configured", "deny"]

RANK: Final[Mapping[Decision, int]] = MappingProxyType(
    {"none": 0, "allow": 1, "ask": 2, "defer": 3, "block": 4, "deny": 5}
)
"""Precedence of decisions. An event speaks either allow/ask/defer/deny or block, never both
(Elicitation's exit 2 is its only deny), so ranking deny above block only keeps `max` total."""
_MAY_UPDATE: Final = frozenset({"none", "allow", "ask"})
"""Decisions with which a handler's `updatedInput` applies (§7.5, §8.4)."""

Pair = tuple[HandlerSpec, HandlerVerdict]


def combine(
    event: str,
    verdicts: Sequence[Pair],
    *,
    updated_input_conflict: UpdatedInputConflict = "last_configured",
) -> Combined:
    """The merged answer of `verdicts`, given in merge order, for `event`."""
    voting = [(spec, v) for spec, v in verdicts if not (spec.run_async or spec.async_rewake)]
    decision: Decision = max((v.decision for _, v in voting), key=RANK.__getitem__, default="none")
    reason = _joined(v.reason for _, v in voting if v.decision == decision != "none")
    updated_input, conflicts = _updated_input(voting)
    if conflicts and updated_input_conflict == "deny" and decision != "deny":
        decision, reason = "deny", f"{event} hooks gave conflicting input ({conflicts[0]})"
    if decision in ("deny", "block"):
        updated_input = None
    updated_output, output_conflicts = _last_of(voting, "updated_output", "updatedToolOutput")
    stops = [v for _, v in voting if not v.continue_]
    return Combined(
        decision=decision,
        reason=reason,
        updated_input=updated_input,
        updated_output=updated_output,
        additional_context=tuple(v.additional_context for _, v in verdicts if v.additional_context),
        continue_=not stops,
        stop_reason=_joined(v.stop_reason for v in stops),
        system_messages=tuple(v.system_message for _, v in verdicts if v.system_message),
        errors=tuple(f"{spec.label}: {v.error}" for spec, v in verdicts if v.error),
        conflicts=(*conflicts, *output_conflicts),
        extra=_merged_extra(voting, decision),
    )


def _joined(reasons: Iterable[str | None]) -> str | None:
    texts = [reason for reason in reasons if reason]
    return "\n".join(texts) if texts else None


def _updated_input(voting: Sequence[Pair]) -> tuple[Mapping[str, Any] | None, tuple[str, ...]]:
    eligible = [(s, v) for s, v in voting if v.decision in _MAY_UPDATE]
    return _last_of(eligible, "updated_input", "updatedInput")


def _last_of(pairs: Sequence[Pair], attr: str, name: str) -> tuple[Any, tuple[str, ...]]:
    """The last value of `attr` in merge order, and a note when earlier ones differ from it."""
    given = [(spec, getattr(v, attr)) for spec, v in pairs if getattr(v, attr) is not None]
    if not given:
        return None, ()
    winner, value = given[-1]
    losers = [spec.label for spec, other in given[:-1] if other != value]
    if not losers:
        return value, ()
    return value, (f"{name}: {winner.label} (last in merge order) overrides {', '.join(losers)}",)


def _merged_extra(voting: Sequence[Pair], decision: Decision) -> Mapping[str, Any]:
    """Event-specific fields in merge order, later keys winning and lists (`watchPaths`,
    `updatedPermissions`) concatenated; a handler outvoted on the decision adds nothing."""
    merged: dict[str, Any] = {}
    for _, verdict in voting:
        if verdict.decision not in ("none", decision):
            continue
        for key, value in verdict.extra.items():
            old = merged.get(key)
            if isinstance(old, list) and isinstance(value, list):
                merged[key] = old + [item for item in value if item not in old]
            else:
                merged[key] = value
    return merged

"""A fold's outcome as journal data, and back: a resumed run replays the folds its segment
already ran instead of calling their hooks again.

Everything the kernel and the dispatcher read from a `Folded` is kept: the deciding result,
who decided or modified, the votes, contexts, metadata changes, the questions asked, and the
value of every event field the hooks rewrote.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, TypeVar

from hookagent._surrogates import replace_escapes
from hookagent.durable._codec import dump_field, load_field
from hookagent.hooks._decision import Vote
from hookagent.hooks._engine import Folded
from hookagent.hooks._points import HookPoint
from hookagent.hooks._result import AskSpec, HookResult

__all__ = ["decode", "encode"]

E = TypeVar("E")


def encode(point: HookPoint[Any], before: Any, folded: Folded[Any] | HookResult | None) -> str:
    if folded is None:
        return '{"t":"none"}'
    if isinstance(folded, HookResult):
        return json.dumps({"t": "routine", "kind": folded.kind})
    best = folded.best
    after = folded.event
    changes = {
        name: dump_field(name, getattr(after, name))
        for name in point.writable
        if name != "metadata" and getattr(after, name) is not getattr(before, name)
    }
    data = {
        "t": "folded",
        "best": {
            "kind": best.kind,
            "reason": best.reason,
            "message": best.message,
            "stop_reason": best.stop_reason,
            "by": best.by,
        },
        "decided_by": folded.decided_by,
        "modified_by": folded.modified_by,
        "votes": [_vote(v) for v in folded.votes],
        "contexts": folded.contexts,
        "metadata": folded.metadata,
        "asks": [[hook, dataclasses.asdict(spec)] for hook, spec in folded.asks],
        "ran": folded.ran,
        "duration": folded.duration,
        "changes": changes,
    }
    return replace_escapes(json.dumps(data, default=_plain))


def decode(event: E, text: str) -> Folded[E] | HookResult | None:
    data = json.loads(text)
    kind = data["t"]
    if kind == "none":
        return None
    if kind == "routine":
        return HookResult(kind=data["kind"])
    changes = {name: load_field(name, value) for name, value in data["changes"].items()}
    best = data["best"]
    return Folded(
        event=dataclasses.replace(event, **changes) if changes else event,  # type: ignore[type-var]
        best=HookResult(
            kind=best["kind"],
            reason=best["reason"],
            message=best["message"],
            stop_reason=best["stop_reason"] or "hook_stop",
            by=best["by"],
        ),
        decided_by=data["decided_by"],
        modified_by=data["modified_by"],
        votes=[Vote(**{**v, "contexts": tuple(v["contexts"])}) for v in data["votes"]],
        contexts=list(data["contexts"]),
        metadata=data["metadata"],
        asks=[(hook, AskSpec(**_ask(spec))) for hook, spec in data["asks"]],
        ran=data["ran"],
        duration=data["duration"],
    )


def _vote(vote: Vote) -> dict[str, Any]:
    return {
        "hook": vote.hook,
        "decision": vote.decision,
        "reason": vote.reason,
        "changes": json.loads(json.dumps(dict(vote.changes), default=_plain)),
        "contexts": list(vote.contexts),
        "duration": vote.duration,
        "error": vote.error,
        "by": vote.by,
    }


def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) else repr(value)


def _ask(spec: dict[str, Any]) -> dict[str, Any]:
    return {**spec, "options": tuple(spec.get("options") or ())}

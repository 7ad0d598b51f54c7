"""What `Approvals` keeps of a question until its answer comes, and how an answer is read:
the call it is about (`call_key`) and how far the approval reaches (`scope_of`).

Answers are seen by the run's `Approver`, not by hooks, so a question is kept (`Asked`) from
the guard raising it to the wrapped approver seeing its answer. An approval for the ``run``
or the ``session`` is remembered in memory, keyed by the tool and its canonical arguments
(the digest the durable store fingerprints approvals with).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from hookagent._canonical import digest
from hookagent._record import record
from hookagent.kernel._approval import Answer

__all__ = ["OPTIONS", "Asked", "call_key", "scope_of", "shown_path"]

OPTIONS: Final = ("once", "run", "session", "always", "deny")
"""The answers a question of the guard offers (``always`` only when it can be honoured)."""
_SCOPES: Final = frozenset(OPTIONS) - {"once", "deny"}
"""The answers that reach further than the one call."""


@record
class Asked:
    """A question the guard raised, kept until the wrapped approver sees its answer."""

    tool_name: str
    key: str
    run_id: str
    session_id: str | None
    always: tuple[str, ...]
    """The rules "always" would save; empty when it cannot be honoured."""


def call_key(tool_name: str, args: Mapping[str, Any]) -> str:
    """What makes two calls the same: the tool and its canonical arguments (as the durable
    store's `fingerprint`, with no policy version: memory lasts one process)."""
    return digest("tool", tool_name, dict(args), "")


def scope_of(answer: Answer) -> str | None:
    """``run``, ``session`` or ``always`` from ``extra["scope"]`` or the choice; else None
    (once)."""
    for value in (answer.extra.get("scope"), answer.choice):
        if isinstance(value, str) and value.strip().lower() in _SCOPES:
            return value.strip().lower()
    return None


def shown_path(path: Path, base: Path) -> str:
    """`path` as a person reads it in a question: relative to `base` where it is below it."""
    try:
        return os.fspath(path.relative_to(base))
    except ValueError:
        return os.fspath(path)

"""Durable runs: a run's journal around the kernel's seams, and the runs kept in a store.

`layer.DurableLayer` wraps the seams (`kernel.seams`) over a `seam.Journal`; `journal.Durable`
is that journal over a `Store`; `runner.DurableRuns` starts, claims and leases runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent._lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.durable._answering import StaleQuestion, answer_question
    from hookagent.durable._layer import DurableLayer
    from hookagent.durable._seam import Journal, Suspended
    from hookagent.durable._sessions import SessionDetail, answer, find_run, fork, inspect

_HOME = {
    "answer": "hookagent.durable._sessions",
    "answer_question": "hookagent.durable._answering",
    "DurableLayer": "hookagent.durable._layer",
    "find_run": "hookagent.durable._sessions",
    "fork": "hookagent.durable._sessions",
    "inspect": "hookagent.durable._sessions",
    "Journal": "hookagent.durable._seam",
    "SessionDetail": "hookagent.durable._sessions",
    "StaleQuestion": "hookagent.durable._answering",
    "Suspended": "hookagent.durable._seam",
}

__all__ = [
    "DurableLayer",
    "Journal",
    "SessionDetail",
    "StaleQuestion",
    "Suspended",
    "answer",
    "answer_question",
    "find_run",
    "fork",
    "inspect",
]

__getattr__ = attribute_loader(__name__, _HOME, globals())

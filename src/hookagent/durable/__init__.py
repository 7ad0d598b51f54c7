"""Durable runs: a run's journal around the kernel's seams, and the runs kept in a store.

`layer.DurableLayer` wraps the seams (`kernel.seams`) over a `seam.Journal`; `journal.Durable`
is that journal over a `Store`; `runner.DurableRuns` starts, claims and leases runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent.lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.durable.answering import StaleQuestion, answer_question
    from hookagent.durable.layer import DurableLayer
    from hookagent.durable.seam import Journal, Suspended
    from hookagent.durable.sessions import SessionDetail, answer, find_run, fork, inspect

_HOME = {
    "answer": "hookagent.durable.sessions",
    "answer_question": "hookagent.durable.answering",
    "DurableLayer": "hookagent.durable.layer",
    "find_run": "hookagent.durable.sessions",
    "fork": "hookagent.durable.sessions",
    "inspect": "hookagent.durable.sessions",
    "Journal": "hookagent.durable.seam",
    "SessionDetail": "hookagent.durable.sessions",
    "StaleQuestion": "hookagent.durable.answering",
    "Suspended": "hookagent.durable.seam",
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

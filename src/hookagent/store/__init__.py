"""Durable storage for sessions and runs (see `base.Store`)."""

from hookagent.store._base import RunRows, Store
from hookagent.store._memory import MemoryStore
from hookagent.store._records import (
    CallRecord,
    Checkpoint,
    Flush,
    JournalEntry,
    QuestionRecord,
    RunRecord,
    SessionQuery,
    SessionRecord,
    TokenRecord,
)

__all__ = [
    "CallRecord",
    "Checkpoint",
    "Flush",
    "JournalEntry",
    "MemoryStore",
    "QuestionRecord",
    "RunRecord",
    "RunRows",
    "SessionQuery",
    "SessionRecord",
    "Store",
    "TokenRecord",
]

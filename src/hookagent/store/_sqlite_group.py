"""Group commit for `SQLiteStore`: flushes of several runs in one transaction.

A flush costs a transaction (the write lock, and a commit writing each page it changed), and
a barrier waits for its own flush. When one run writes through the store, each flush is its
own transaction, at once. When several runs of the process are flushing, a flush waits for
the loop to go round once: the flushes the other runs ask for meanwhile join it, and all are
written in one transaction, each in a savepoint of its own, so a flush that is refused (its
run's lease was lost) or fails is undone alone and only its barrier fails. Flushes are
written in the order they were asked for; each barrier waits for its own only.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, final

from hookagent._errors import StoreError
from hookagent.store import _sqlite_ops as sqlite_ops
from hookagent.store._records import Flush

__all__ = ["ACTIVE_FOR", "Pending", "Runs", "write"]

ACTIVE_FOR: Final = 1.0
"""Seconds a running run counts as flushing after its last flush."""


@final
@dataclass(slots=True)
class Pending:
    """A flush asked for, and its outcome once written."""

    flush: Flush
    done: asyncio.Future[None] | None = None
    """Set for a flush that waits for its group."""
    error: BaseException | None = None


@final
class Runs:
    """Which runs of this process flush through the store: its running runs that flushed
    within `ACTIVE_FOR` seconds (a run's last flush, at its end or pause, takes it out)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: dict[str, float] = {}

    def others(self, flush: Flush) -> bool:
        """Note `flush`; whether another run is flushing too."""
        now, run_id, last = time.monotonic(), flush.run_id, self._last
        if flush.status in ("running", "queued"):
            last[run_id] = now
        else:
            last.pop(run_id, None)
        if len(last) <= (run_id in last):
            return False
        for other, at in list(last.items()):
            if at < now - ACTIVE_FOR:
                del last[other]  # a run that stopped without a last flush (a crash)
        return len(last) > (run_id in last)


def write(
    conn: sqlite3.Connection,
    group: Sequence[Pending],
    where: str,
    fault: Callable[[str, sqlite3.Error], StoreError],
) -> None:
    """Write `group` on `conn`, inside the transaction already begun. A lone flush's error
    is raised; in a group, each flush is in a savepoint and keeps its own error, unless the
    transaction itself is lost (then the whole group fails, raised)."""
    if len(group) == 1:
        sqlite_ops.flush(conn, group[0].flush, where)
        return
    for pending in group:
        conn.execute("SAVEPOINT flush")
        try:
            sqlite_ops.flush(conn, pending.flush, where)
        except (StoreError, sqlite3.Error) as exc:
            if not conn.in_transaction:
                raise  # SQLite rolled the whole transaction back: nothing of it stands
            conn.execute("ROLLBACK TO flush")
            pending.error = fault("flush a run", exc) if isinstance(exc, sqlite3.Error) else exc
        conn.execute("RELEASE flush")

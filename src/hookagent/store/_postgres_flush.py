"""A flush as the parameters of PostgreSQL's one flush statement (`SQL.FLUSH`): the run's
fields, then one array per column of each table written, so a barrier is one round trip."""

from __future__ import annotations

from collections.abc import Sequence

from hookagent.store._columns import CALL_FIELDS, QUESTION_FIELDS, checkpoint_json, values
from hookagent.store._records import Flush

__all__ = ["flush_args"]


def flush_args(flush: Flush) -> tuple[object, ...]:
    """`SQL.FLUSH`'s parameters: the run's, then one list per column of each table's rows.
    Journal entries older than a checkpoint written with them are void already."""
    point = flush.checkpoint
    journal = [e for e in flush.journal if point is None or e.segment >= point.segment]
    rows = (flush.messages, flush.steps, flush.decisions)
    return (
        flush.run_id,
        flush.worker,
        flush.epoch,
        flush.status,
        flush.scalars,
        flush.at,
        None if point is None else checkpoint_json(point),
        flush.at + flush.lease if flush.worker is not None else 0.0,
        None if point is None else point.segment,
        *(column for table in rows for column in _columns(table, 2)),
        [e.segment for e in journal],
        [e.key for e in journal],
        [e.kind for e in journal],
        [e.data for e in journal],
        *_columns([values(c, CALL_FIELDS) for c in flush.calls], len(CALL_FIELDS)),
        *_columns([values(q, QUESTION_FIELDS) for q in flush.questions], len(QUESTION_FIELDS)),
    )


def _columns(rows: Sequence[Sequence[object]], width: int) -> list[list[object]]:
    """Rows as one list per column (`width` empty lists for no rows)."""
    if not rows:
        return [[] for _ in range(width)]
    return [list(column) for column in zip(*rows, strict=True)]

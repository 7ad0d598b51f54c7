"""The columns of the SQL stores' tables and the conversions between their rows and records.

Columns are named as the fields of the records they hold, in the same order in SQLite and
PostgreSQL, so a row becomes a record by position and a record becomes statement parameters
by name. Only a run's checkpoint is not a plain value: it is kept as JSON text."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import fields
from operator import attrgetter
from types import MappingProxyType
from typing import Any, Final, TypeVar

from hookagent._errors import StoreError
from hookagent.store._records import (
    CallRecord,
    Checkpoint,
    Flush,
    QuestionRecord,
    RunRecord,
    SessionRecord,
    TokenRecord,
)

__all__ = [
    "CALL_COLUMNS",
    "CALL_FIELDS",
    "QUESTION_COLUMNS",
    "QUESTION_FIELDS",
    "RUN_COLUMNS",
    "RUN_FIELDS",
    "SESSION_COLUMNS",
    "SESSION_FIELDS",
    "TOKEN_COLUMNS",
    "TOKEN_FIELDS",
    "appended",
    "call_record",
    "checkpoint_json",
    "question_record",
    "run_record",
    "run_values",
    "session_record",
    "token_record",
    "upserts",
    "values",
]

R = TypeVar("R")

SESSION_COLUMNS: Final = "id, name, created_at, updated_at, head_run_id, forked_from, status, title"
RUN_COLUMNS: Final = (
    "id, session_id, status, created_at, updated_at, parent_run_id, prompt, scalars, "
    "checkpoint, lease_owner, lease_until, policy_version, lease_epoch"
)
CALL_COLUMNS: Final = "call_id, step, name, args, idempotency_key, state, result, updated_at"
QUESTION_COLUMNS: Final = (
    "id, run_id, session_id, key, data, fingerprint, created_at, expires_at, answer, answered_at"
)
TOKEN_COLUMNS: Final = "id, name, role, digest, created_at, revoked_at"

SESSION_FIELDS: Final = tuple(SESSION_COLUMNS.split(", "))
RUN_FIELDS: Final = tuple(RUN_COLUMNS.split(", "))
CALL_FIELDS: Final = tuple(CALL_COLUMNS.split(", "))
QUESTION_FIELDS: Final = tuple(QUESTION_COLUMNS.split(", "))
TOKEN_FIELDS: Final = tuple(TOKEN_COLUMNS.split(", "))
"""The columns, named as the records' fields they hold."""

_CALL_VALUES: Final = attrgetter(*CALL_FIELDS)
_QUESTION_VALUES: Final = attrgetter(*QUESTION_FIELDS)
"""`values(record, CALL_FIELDS)` and `values(record, QUESTION_FIELDS)`, in C (every flush
writes call states)."""
_CHECKPOINT_FIELDS: Final = frozenset(f.name for f in fields(Checkpoint))
_ROW_TABLES: Final = ("messages", "steps", "decisions")
"""The tables of a run's rows: JSON text by run and index."""


def values(record: object, names: Sequence[str]) -> tuple[object, ...]:
    """The record's fields `names`, as statement parameters."""
    return tuple(getattr(record, name) for name in names)


def _maker(make: Callable[..., R], names: Sequence[str]) -> Callable[[Any], R]:
    """`make(name=row[i], ...)` for each column, compiled once (as `dataclasses` compiles an
    `__init__`): listing sessions builds a record per row, and a dict of keywords per row
    cost twice as much. `names` are this module's column constants, never input; a row is
    any sequence (an SQLite tuple, an asyncpg record)."""
    keywords = ", ".join(f"{name}=row[{i}]" for i, name in enumerate(names))
    made: Callable[[Any], R] = eval(f"lambda row: make({keywords})", {"make": make})
    return made


session_record: Final = _maker(SessionRecord, SESSION_FIELDS)
call_record: Final = _maker(CallRecord, CALL_FIELDS)
question_record: Final = _maker(QuestionRecord, QUESTION_FIELDS)
token_record: Final = _maker(TokenRecord, TOKEN_FIELDS)


def checkpoint_json(point: Checkpoint) -> str:
    """As `asdict` would give it, without its deep copy (a checkpoint is written every turn)."""
    return _COMPACT.encode(
        {
            "segment": point.segment,
            "messages": point.messages,
            "steps": point.steps,
            "decisions": point.decisions,
            "scalars": point.scalars,
        }
    )


_COMPACT: Final = json.JSONEncoder(separators=(",", ":"))


def run_values(run: RunRecord) -> tuple[object, ...]:
    """The run's values in `RUN_FIELDS` order, its checkpoint as JSON."""
    point = run.checkpoint
    return tuple(
        (None if point is None else checkpoint_json(point)) if name == "checkpoint" else value
        for name, value in zip(RUN_FIELDS, values(run, RUN_FIELDS), strict=True)
    )


def run_record(row: Any, where: str) -> RunRecord:
    """The run a row of `RUN_COLUMNS` holds; a `StoreError` naming `where` if its checkpoint
    cannot be read."""
    text = row[_CHECKPOINT_AT]
    if text is None:
        return _run(row, None)
    try:
        data = json.loads(text)
        # Fields a newer hookagent added are dropped, so an older one can still resume.
        point = Checkpoint(**{k: v for k, v in data.items() if k in _CHECKPOINT_FIELDS})
    except (ValueError, TypeError, AttributeError) as exc:
        raise StoreError(
            f"{where}: run {row[0]!r} has an unreadable checkpoint {text!r}: {exc}"
        ) from exc
    return _run(row, point)


_CHECKPOINT_AT: Final = RUN_FIELDS.index("checkpoint")
_run: Final[Callable[[Any, Checkpoint | None], RunRecord]] = eval(
    "lambda row, checkpoint: make("
    + ", ".join(
        "checkpoint=checkpoint" if name == "checkpoint" else f"{name}=row[{i}]"
        for i, name in enumerate(RUN_FIELDS)
    )
    + ")",
    {"make": RunRecord},
)
"""`RunRecord` of a row and its read checkpoint (compiled once, as `_maker`)."""


def appended(flush: Flush) -> Iterator[tuple[str, list[tuple[object, ...]]]]:
    """What a flush adds or replaces, table by table (those with nothing left out), as the
    parameters of the statement that writes each: messages, steps and decisions as `(run_id,
    idx, data)`, then journal entries, tool-call states and questions."""
    run_id = flush.run_id
    for table, rows in zip(
        _ROW_TABLES, (flush.messages, flush.steps, flush.decisions), strict=True
    ):
        if rows:
            yield table, [(run_id, idx, data) for idx, data in rows]
    if flush.journal:
        yield "journal", [(run_id, e.segment, e.key, e.kind, e.data) for e in flush.journal]
    if flush.calls:
        yield "tool_calls", [(run_id, *_CALL_VALUES(c)) for c in flush.calls]
    if flush.questions:
        yield "questions", [_QUESTION_VALUES(q) for q in flush.questions]


def upserts(mark: str, *, row: str, journal: str) -> Mapping[str, str]:
    """Table → the statement that writes what `appended` gives for it. Tool calls and
    questions are written alike in every dialect, with parameters numbered after `mark` (`?`
    or `$`); `row` (for messages, steps and decisions, with `{table}` to fill in) and
    `journal` are the dialect's own."""
    call = (
        f"INSERT INTO tool_calls (run_id, {CALL_COLUMNS}) VALUES "
        f"({_marks(mark, 1 + len(CALL_FIELDS))}) ON CONFLICT (run_id, call_id) DO UPDATE SET "
        + ", ".join(f"{name} = excluded.{name}" for name in CALL_FIELDS[1:])
    )
    question = (
        f"INSERT INTO questions ({QUESTION_COLUMNS}) "
        f"VALUES ({_marks(mark, len(QUESTION_FIELDS))}) ON CONFLICT (id) DO NOTHING"
    )
    statements = {table: row.format(table=table) for table in _ROW_TABLES}
    return MappingProxyType(
        {**statements, "journal": journal, "tool_calls": call, "questions": question}
    )


def _marks(mark: str, count: int) -> str:
    return ", ".join(f"{mark}{n}" for n in range(1, count + 1))

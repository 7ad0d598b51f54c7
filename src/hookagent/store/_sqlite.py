"""`SQLiteStore`: the default store, one SQLite file (`.hookagent/sessions.db`).

Each method is one transaction on the store's own thread (`SQLiteFile._do`, where the
connections, the flush path and durability live); its body is in `sqlite_ops`, its
statements and the conversions between rows and records in `sqlite_sql`.
"""

from __future__ import annotations

from typing import Any, Final, final

from hookagent.store import _sqlite_ops as sqlite_ops
from hookagent.store._control import ControlSQL, Dialect, SQLControl
from hookagent.store._records import QuestionRecord, RunRecord, SessionRecord
from hookagent.store._sqlite_file import DURABILITY, Durability, SQLiteFile
from hookagent.store._sqlite_sql import SQL, SQLiteRows

__all__ = ["DURABILITY", "Durability", "SQLiteRows", "SQLiteStore"]

_SQL: Final = SQL
_CONTROL_SQL: Final = ControlSQL(Dialect(mark="?", order="rowid", like="LIKE"))
"""The statements, under the names tests check their query plans by."""


@final
class SQLiteStore(SQLiteFile, SQLControl):
    """The store in one SQLite file; `durability` is explained on `SQLiteFile`."""

    _control = _CONTROL_SQL

    def __repr__(self) -> str:
        return f"SQLiteStore({self._url!r})"

    # -- sessions -------------------------------------------------------------------------
    async def create_session(self, session: SessionRecord) -> None:
        await self._do(
            "create a session",
            lambda conn: sqlite_ops.create_session(conn, session, self._url),
            write=True,
        )

    async def session(self, key: str) -> SessionRecord | None:
        return await self._do(
            "read a session", lambda conn: sqlite_ops.session(conn, key), write=False
        )

    async def sessions(self, *, limit: int = 100, offset: int = 0) -> list[SessionRecord]:
        return await self._do(
            "list sessions", lambda conn: sqlite_ops.sessions(conn, limit, offset), write=False
        )

    async def runs(self, session_id: str) -> list[RunRecord]:
        return await self._do(
            "list runs", lambda conn: sqlite_ops.runs(conn, session_id, self._url), write=False
        )

    # -- runs -----------------------------------------------------------------------------
    async def create_run(self, run: RunRecord) -> None:
        await self._do(
            "create a run", lambda conn: sqlite_ops.create_run(conn, run, self._url), write=True
        )

    async def run(self, run_id: str) -> RunRecord | None:
        return await self._do(
            "read a run", lambda conn: sqlite_ops.run(conn, run_id, self._url), write=False
        )

    async def load(self, run_id: str) -> SQLiteRows | None:
        return await self._do(
            "load a run", lambda conn: sqlite_ops.load(conn, run_id, self._url), write=False
        )

    async def rows(self, run_id: str) -> SQLiteRows | None:
        return await self._do(
            "read a run's rows", lambda conn: sqlite_ops.rows(conn, run_id, self._url), write=False
        )

    # -- questions ------------------------------------------------------------------------
    async def questions(self, run_id: str, *, pending: bool = True) -> list[QuestionRecord]:
        return await self._do(
            "list questions", lambda conn: sqlite_ops.questions(conn, run_id, pending), write=False
        )

    async def answer(self, question_id: str, answer: str, at: float) -> bool:
        return await self._do(
            "answer a question",
            lambda conn: sqlite_ops.answer(conn, question_id, answer, at),
            write=True,
        )

    async def approvals(self, session_id: str, fingerprint: str) -> list[QuestionRecord]:
        return await self._do(
            "list approvals",
            lambda conn: sqlite_ops.approvals(conn, session_id, fingerprint),
            write=False,
        )

    # -- workers --------------------------------------------------------------------------
    async def claim(self, worker: str, now: float, lease: float) -> RunRecord | None:
        return await self._claim(worker, now, lease, None, None)

    async def claim_run(
        self, run_id: str, worker: str, now: float, lease: float, *, over_epoch: int | None = None
    ) -> RunRecord | None:
        return await self._claim(worker, now, lease, run_id, over_epoch)

    async def _claim(
        self, worker: str, now: float, lease: float, run_id: str | None, over_epoch: int | None
    ) -> RunRecord | None:
        return await self._do(
            "claim a run",
            lambda conn: sqlite_ops.claim(conn, worker, now, lease, run_id, over_epoch, self._url),
            write=True,
        )

    async def renew(
        self, run_id: str, worker: str, now: float, lease: float, *, epoch: int
    ) -> bool:
        return await self._do(
            "renew a lease",
            lambda conn: sqlite_ops.renew(conn, run_id, worker, epoch, now, lease),
            write=True,
        )

    async def release(self, run_id: str, worker: str, *, epoch: int) -> None:
        await self._do(
            "release a lease",
            lambda conn: sqlite_ops.release(conn, run_id, worker, epoch),
            write=True,
        )

    # -- single statements ----------------------------------------------------------------
    async def _fetch(self, op: str, query: str, *args: object) -> list[Any]:
        return await self._do(op, lambda conn: conn.execute(query, args).fetchall(), write=False)

    async def _count(self, op: str, query: str, *args: object) -> int:
        return await self._do(op, lambda conn: conn.execute(query, args).rowcount, write=True)

"""What `SQLiteStore` keeps and reads for `hookagent serve`: sessions found by status or
title, questions by id and across sessions (the inbox), and the API's bearer tokens."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TypeVar

from hookagent.errors import StoreError
from hookagent.store.records import QuestionRecord, SessionRecord, TokenRecord
from hookagent.store.sqlite_sql import (
    QUESTION_COLUMNS,
    SESSION_COLUMNS,
    question_record,
    session_record,
)

__all__ = ["TOKEN_COLUMNS", "SQLiteControl", "like_pattern"]

T = TypeVar("T")

TOKEN_COLUMNS: Final = "id, name, role, digest, created_at, revoked_at"
_QUESTION: Final = f"SELECT {QUESTION_COLUMNS} FROM questions WHERE id = ?"
_OPEN_QUESTIONS: Final = (
    f"SELECT {QUESTION_COLUMNS} FROM questions WHERE answer IS NULL "
    "AND run_id IN (SELECT id FROM runs WHERE status = 'waiting') "
    "ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?"
)
_INSERT_TOKEN: Final = f"INSERT INTO tokens ({TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
_TOKEN: Final = f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE digest = ?"
_TOKENS: Final = f"SELECT {TOKEN_COLUMNS} FROM tokens ORDER BY created_at, rowid"
_REVOKE: Final = "UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"


def like_pattern(text: str) -> str:
    """`text` anywhere, for `LIKE … ESCAPE '\\'`: its own `%`, `_` and `\\` match themselves."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _token(row: tuple[object, ...]) -> TokenRecord:
    id_, name, role, digest, created_at, revoked_at = row
    return TokenRecord(
        id=str(id_),
        name=str(name),
        role=role,  # type: ignore[arg-type]  # written from a TokenRole
        digest=str(digest),
        created_at=float(created_at),  # type: ignore[arg-type]
        revoked_at=None if revoked_at is None else float(revoked_at),  # type: ignore[arg-type]
    )


class SQLiteControl:
    """The `Store` methods `hookagent serve` needs, over `SQLiteStore._do`."""

    _url: str

    if TYPE_CHECKING:

        async def _do(
            self, op: str, fn: Callable[[sqlite3.Connection], T], *, write: bool
        ) -> T: ...

    async def find_sessions(
        self,
        *,
        status: str | None = None,
        search: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[SessionRecord]:
        clauses, params = ["1"], list[object]()
        if status is not None:
            clauses.append("status = ?")
            params.append(status)
        if search:
            clauses.append("(title LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\')")
            params += [like_pattern(search)] * 2
        sql = (
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE {' AND '.join(clauses)} "
            "ORDER BY updated_at DESC, rowid LIMIT ? OFFSET ?"
        )
        return await self._do(
            "find sessions",
            lambda conn: [session_record(r) for r in conn.execute(sql, (*params, limit, offset))],
            write=False,
        )

    async def question(self, question_id: str) -> QuestionRecord | None:
        def read(conn: sqlite3.Connection) -> QuestionRecord | None:
            row = conn.execute(_QUESTION, (question_id,)).fetchone()
            return None if row is None else question_record(row)

        return await self._do("read a question", read, write=False)

    async def open_questions(self, *, limit: int = 100, offset: int = 0) -> list[QuestionRecord]:
        return await self._do(
            "list open questions",
            lambda conn: [
                question_record(r) for r in conn.execute(_OPEN_QUESTIONS, (limit, offset))
            ],
            write=False,
        )

    async def create_token(self, token: TokenRecord) -> None:
        def insert(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    _INSERT_TOKEN,
                    (token.id, token.name, token.role, token.digest, token.created_at, None),
                )
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"{self._url}: token {token.id} exists already") from exc

        await self._do("create a token", insert, write=True)

    async def token(self, digest: str) -> TokenRecord | None:
        def read(conn: sqlite3.Connection) -> TokenRecord | None:
            row = conn.execute(_TOKEN, (digest,)).fetchone()
            return None if row is None else _token(row)

        return await self._do("read a token", read, write=False)

    async def tokens(self) -> list[TokenRecord]:
        return await self._do(
            "list tokens", lambda conn: [_token(r) for r in conn.execute(_TOKENS)], write=False
        )

    async def revoke_token(self, token_id: str, at: float) -> bool:
        return await self._do(
            "revoke a token",
            lambda conn: conn.execute(_REVOKE, (at, token_id)).rowcount == 1,
            write=True,
        )

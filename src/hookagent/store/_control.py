"""What the SQL stores keep and read for `hookagent serve`: sessions found by status or
title, questions by id and across sessions (the inbox), and the API's bearer tokens.

The statements are written once; what SQLite and PostgreSQL say differently is a `Dialect`.
Each store gives the two ways it runs a statement, `_fetch` (the rows a query returns) and
`_count` (how many rows a change touched)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Unpack, final

from hookagent._errors import StoreError
from hookagent.store._columns import (
    QUESTION_COLUMNS,
    QUESTION_FIELDS,
    SESSION_COLUMNS,
    SESSION_FIELDS,
    TOKEN_COLUMNS,
    question_record,
    session_record,
    token_record,
)
from hookagent.store._records import QuestionRecord, SessionQuery, SessionRecord, TokenRecord

__all__ = ["ControlSQL", "Dialect", "SQLControl", "like_pattern"]


@final
@dataclass(frozen=True, slots=True)
class Dialect:
    mark: str
    """What numbers a parameter: `?` in SQLite (`?1`), `$` in PostgreSQL (`$1`)."""
    order: str
    """The column that keeps insertion order: `rowid` in SQLite, `seq` in PostgreSQL."""
    like: str
    """The case-insensitive match: `LIKE` in SQLite (ASCII letters), `ILIKE` in PostgreSQL."""


def like_pattern(text: str) -> str:
    """`text` anywhere, for `LIKE … ESCAPE '\\'`: its own `%`, `_` and `\\` match themselves."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


@final
class ControlSQL:
    """The statements of `SQLControl` in one dialect."""

    __slots__ = (
        "dialect",
        "inbox",
        "insert_token",
        "open_questions",
        "question",
        "revoke",
        "token",
        "tokens",
    )

    def __init__(self, dialect: Dialect) -> None:
        p, order = dialect.mark, dialect.order
        self.dialect = dialect
        self.question = f"SELECT {QUESTION_COLUMNS} FROM questions WHERE id = {p}1"
        self.open_questions = (
            f"SELECT {QUESTION_COLUMNS} FROM questions WHERE answer IS NULL "
            "AND run_id IN (SELECT id FROM runs WHERE status = 'waiting') "
            f"ORDER BY created_at DESC, {order} DESC LIMIT {p}1 OFFSET {p}2"
        )
        """The inbox: from the waiting runs (by `runs_by_status`) to their questions."""
        asked = ", ".join(f"q.{column}" for column in QUESTION_FIELDS)
        sessions = ", ".join(f"s.{column}" for column in SESSION_FIELDS)
        self.inbox = (
            f"SELECT {asked}, {sessions} FROM questions q "
            "LEFT JOIN sessions s ON s.id = q.session_id WHERE q.answer IS NULL "
            "AND q.run_id IN (SELECT id FROM runs WHERE status = 'waiting') "
            "AND NOT EXISTS (SELECT 1 FROM questions n "
            "WHERE n.run_id = q.run_id AND n.created_at > q.created_at) "
            f"ORDER BY q.created_at DESC, q.{order} DESC LIMIT {p}1 OFFSET {p}2"
        )
        """`open_questions` less those their runs went past (a newer question of the same run,
        by `questions_by_run`), each with its session."""
        self.insert_token = (
            f"INSERT INTO tokens ({TOKEN_COLUMNS}) "
            f"VALUES ({p}1, {p}2, {p}3, {p}4, {p}5, NULL) ON CONFLICT DO NOTHING"
        )
        self.token = f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE digest = {p}1"
        self.tokens = f"SELECT {TOKEN_COLUMNS} FROM tokens ORDER BY created_at, {order}"
        self.revoke = f"UPDATE tokens SET revoked_at = {p}2 WHERE id = {p}1 AND revoked_at IS NULL"

    def find_sessions(self, status: str | None, search: str | None) -> tuple[str, list[object]]:
        """The statement and its parameters; it ends with `LIMIT` and `OFFSET` parameters,
        to be given after these. Only the conditions asked for are written, so the planner
        sees no condition it cannot use."""
        p, like = self.dialect.mark, self.dialect.like
        clauses, params = ["TRUE"], list[object]()
        if status is not None:
            params.append(status)
            clauses.append(f"status = {p}{len(params)}")
        if search:
            params.append(like_pattern(search))
            n = f"{p}{len(params)}"
            clauses.append(f"(title {like} {n} ESCAPE '\\' OR name {like} {n} ESCAPE '\\')")
        sql = (
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE {' AND '.join(clauses)} "
            f"ORDER BY updated_at DESC, {self.dialect.order} "
            f"LIMIT {p}{len(params) + 1} OFFSET {p}{len(params) + 2}"
        )
        return sql, params


class SQLControl:
    """The `Store` methods `hookagent serve` needs, over a SQL store's `_fetch` and
    `_count`."""

    _url: str
    _control: ClassVar[ControlSQL]

    if TYPE_CHECKING:

        async def _fetch(self, op: str, query: str, *args: object) -> Sequence[Any]: ...
        async def _count(self, op: str, query: str, *args: object) -> int: ...

    async def find_sessions(self, **query: Unpack[SessionQuery]) -> list[SessionRecord]:
        sql, params = self._control.find_sessions(query.get("status"), query.get("search"))
        page = query.get("limit", 100), query.get("offset", 0)
        rows = await self._fetch("find sessions", sql, *params, *page)
        return [session_record(row) for row in rows]

    async def question(self, question_id: str) -> QuestionRecord | None:
        rows = await self._fetch("read a question", self._control.question, question_id)
        return question_record(rows[0]) if rows else None

    async def open_questions(self, *, limit: int = 100, offset: int = 0) -> list[QuestionRecord]:
        sql = self._control.open_questions
        return [
            question_record(r) for r in await self._fetch("list open questions", sql, limit, offset)
        ]

    async def inbox(
        self, *, limit: int = 100, offset: int = 0
    ) -> list[tuple[QuestionRecord, SessionRecord | None]]:
        rows = await self._fetch("read the inbox", self._control.inbox, limit, offset)
        n = len(QUESTION_FIELDS)
        return [
            (question_record(row[:n]), session_record(row[n:]) if row[n] is not None else None)
            for row in (tuple(r) for r in rows)
        ]

    async def create_token(self, token: TokenRecord) -> None:
        inserted = await self._count(
            "create a token",
            self._control.insert_token,
            token.id,
            token.name,
            token.role,
            token.digest,
            token.created_at,
        )
        if inserted != 1:
            raise StoreError(f"{self._url}: token {token.id} exists already")

    async def token(self, digest: str) -> TokenRecord | None:
        rows = await self._fetch("read a token", self._control.token, digest)
        return token_record(rows[0]) if rows else None

    async def tokens(self) -> list[TokenRecord]:
        return [token_record(row) for row in await self._fetch("list tokens", self._control.tokens)]

    async def revoke_token(self, token_id: str, at: float) -> bool:
        return await self._count("revoke a token", self._control.revoke, token_id, at) == 1

"""What `PostgresStore` keeps and reads for `hookagent serve`: sessions found by status or
title, questions by id and across sessions (the inbox), and the API's bearer tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from hookagent.errors import StoreError
from hookagent.store.postgres_sql import QUESTION_COLUMNS, SESSION_COLUMNS, Row
from hookagent.store.records import QuestionRecord, SessionRecord, TokenRecord
from hookagent.store.sqlite_control import TOKEN_COLUMNS, like_pattern

__all__ = ["PostgresControl"]

_FIND_SESSIONS: Final = (
    f"SELECT {SESSION_COLUMNS} FROM sessions "
    "WHERE ($1::text IS NULL OR status = $1) "
    "AND ($2::text IS NULL OR title ILIKE $2 ESCAPE '\\' OR name ILIKE $2 ESCAPE '\\') "
    "ORDER BY updated_at DESC, seq LIMIT $3 OFFSET $4"
)
_QUESTION: Final = f"SELECT {QUESTION_COLUMNS} FROM questions WHERE id = $1"
_OPEN_QUESTIONS: Final = (
    f"SELECT {QUESTION_COLUMNS} FROM questions WHERE answer IS NULL "
    "AND run_id IN (SELECT id FROM runs WHERE status = 'waiting') "
    "ORDER BY created_at DESC, seq DESC LIMIT $1 OFFSET $2"
)
_INSERT_TOKEN: Final = (
    f"INSERT INTO tokens ({TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, NULL) ON CONFLICT DO NOTHING"
)
_TOKEN: Final = f"SELECT {TOKEN_COLUMNS} FROM tokens WHERE digest = $1"
_TOKENS: Final = f"SELECT {TOKEN_COLUMNS} FROM tokens ORDER BY created_at, seq"
_REVOKE: Final = "UPDATE tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL"


class PostgresControl:
    """The `Store` methods `hookagent serve` needs, over `PostgresStore`'s single
    statements."""

    _url: str

    if TYPE_CHECKING:

        async def _fetch(self, op: str, query: str, *args: object) -> list[Row]: ...
        async def _fetchrow(self, op: str, query: str, *args: object) -> Row | None: ...
        async def _execute(self, op: str, query: str, *args: object) -> str: ...

    async def find_sessions(
        self,
        *,
        status: str | None = None,
        search: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[SessionRecord]:
        pattern = like_pattern(search) if search else None
        rows = await self._fetch("find sessions", _FIND_SESSIONS, status, pattern, limit, offset)
        return [SessionRecord(**dict(row)) for row in rows]

    async def question(self, question_id: str) -> QuestionRecord | None:
        row = await self._fetchrow("read a question", _QUESTION, question_id)
        return None if row is None else QuestionRecord(**dict(row))

    async def open_questions(self, *, limit: int = 100, offset: int = 0) -> list[QuestionRecord]:
        rows = await self._fetch("list open questions", _OPEN_QUESTIONS, limit, offset)
        return [QuestionRecord(**dict(row)) for row in rows]

    async def create_token(self, token: TokenRecord) -> None:
        status = await self._execute(
            "create a token",
            _INSERT_TOKEN,
            token.id,
            token.name,
            token.role,
            token.digest,
            token.created_at,
        )
        if status != "INSERT 0 1":
            raise StoreError(f"{self._url}: token {token.id} exists already")

    async def token(self, digest: str) -> TokenRecord | None:
        row = await self._fetchrow("read a token", _TOKEN, digest)
        return None if row is None else TokenRecord(**dict(row))

    async def tokens(self) -> list[TokenRecord]:
        return [TokenRecord(**dict(row)) for row in await self._fetch("list tokens", _TOKENS)]

    async def revoke_token(self, token_id: str, at: float) -> bool:
        status = await self._execute("revoke a token", _REVOKE, token_id, at)
        return status == "UPDATE 1"

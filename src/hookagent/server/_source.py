"""Where the server reads runs and answers questions: one small protocol (`RunSource`) the
routes talk to, over a store (`StoreSource`) or a Temporal server
(`temporal_source.TemporalSource`), each item shaped as the API shows it.

What one backend cannot offer is a 501 problem naming it (`kept`), never an empty answer.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, final

from fastapi import Request

from hookagent.durable._answering import answer_question
from hookagent.durable._answers import Scope
from hookagent.server._problems import known
from hookagent.server._views import arg_changes, call_json, given_args, question_json, run_json
from hookagent.store._base import Store

__all__ = ["Reply", "RunSource", "StoreSource", "Table", "source_of"]

Table = Literal["messages", "steps", "decisions", "tool-calls"]


class RunSource(Protocol):
    """Sessions, runs and their questions, as the API shows them."""

    name: str
    """What the runs are read from (a store's URL, `temporal:HOST:PORT`)."""

    async def sessions(
        self, status: str | None, search: str | None, limit: int, offset: int
    ) -> list[dict[str, Any]]: ...

    async def session(self, key: str) -> dict[str, Any] | None:
        """`{"session", "runs"}` (runs oldest first), None if there is none by `key`."""

    async def run(self, run_id: str) -> dict[str, Any] | None:
        """The run with the questions it waits on (`questions`)."""

    async def rows(self, run_id: str, table: Table, limit: int, offset: int) -> list[Any] | None:
        """`limit` rows of one of the run's tables from `offset`, each as shown, in order;
        None for no such run."""

    async def inbox(
        self, limit: int, offset: int = 0, *, rewrites: bool = False
    ) -> tuple[list[dict[str, Any]], int]:
        """The waiting questions, newest first, and how many were read for the page."""

    async def question(self, question_id: str) -> dict[str, Any] | None: ...

    async def settled(self, item: dict[str, Any]) -> dict[str, Any] | None:
        """Question `item` (no longer waiting) with its answer if it was answered; None if
        it expired or its run went past it."""

    async def answer(self, question_id: str, reply: Reply) -> tuple[dict[str, Any], str]:
        """Answer it (`durable.StaleQuestion` if it no longer waits, or `reply.seen` is not
        its fingerprint): the question answered, and how its run goes on."""

    def kept(self, feature: str) -> Store:
        """The store of runs, for what only a store offers (`feature`, named in the 501
        problem of a source that has none)."""


@final
@dataclass(frozen=True, slots=True)
class Reply:
    """An answer to one question, as `durable.answer_question` takes it."""

    approved: bool
    scope: Scope
    reason: str | None
    ttl: float | None
    by: str
    seen: str | None
    """The fingerprint the answerer saw, if named: the question must still have it."""


def source_of(request: Request) -> RunSource:
    source: RunSource = request.app.state.runs
    return source


@final
class StoreSource:
    """The runs of a store."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.name = store.url

    async def sessions(
        self, status: str | None, search: str | None, limit: int, offset: int
    ) -> list[dict[str, Any]]:
        from hookagent.server._views import session_json

        chosen: Any = status  # checked by the route against the statuses a session has
        found = await self._store.find_sessions(
            status=chosen, search=search, limit=limit, offset=offset
        )
        return [session_json(s) for s in found]

    async def session(self, key: str) -> dict[str, Any] | None:
        from hookagent.server._views import session_json

        found = await self._store.session(key)
        if found is None:
            return None
        return {
            "session": session_json(found),
            "runs": [run_json(r) for r in await self._store.runs(found.id)],
        }

    async def run(self, run_id: str) -> dict[str, Any] | None:
        found = await self._store.run(run_id)
        if found is None:
            return None
        waiting = await self._store.questions(run_id) if found.status == "waiting" else []
        return {**run_json(found), "questions": [question_json(q) for q in waiting]}

    async def rows(self, run_id: str, table: Table, limit: int, offset: int) -> list[Any] | None:
        rows = await self._store.rows(run_id)
        if rows is None:
            return None
        if table == "tool-calls":
            return [call_json(c) for c in rows.calls[offset : offset + limit]]
        return [json.loads(text) for text in list(getattr(rows, table))[offset : offset + limit]]

    async def inbox(
        self, limit: int, offset: int = 0, *, rewrites: bool = False
    ) -> tuple[list[dict[str, Any]], int]:
        found = await self._store.inbox(limit=limit, offset=offset)
        conversations: dict[str, Sequence[str]] = {}
        items = []
        for question, session in found:
            item = question_json(question, session)
            if rewrites:
                await self._with_rewrites(item, conversations)
            items.append(item)
        return items, len(found)

    async def question(self, question_id: str) -> dict[str, Any] | None:
        found = await self._store.question(question_id)
        if found is None:
            return None
        item = question_json(found, await self._store.session(found.session_id))
        await self._with_rewrites(item, {})
        return item

    async def settled(self, item: dict[str, Any]) -> dict[str, Any] | None:
        found = await self._store.question(item["id"])
        if found is None or found.answer is None:
            return None
        session = {"session": item["session"]} if "session" in item else {}
        return question_json(found, None) | session

    async def answer(self, question_id: str, reply: Reply) -> tuple[dict[str, Any], str]:
        found = known(await self._store.question(question_id), f"question {question_id!r}")
        given = await answer_question(self._store, found, **dataclasses.asdict(reply))
        resume = f"hookagent resume {given.run_id} (or let `hookagent worker` take it)"
        return question_json(given), resume

    def kept(self, feature: str) -> Store:
        return self._store

    async def _with_rewrites(
        self, item: dict[str, Any], conversations: dict[str, Sequence[str]]
    ) -> None:
        """Add to a question about a call the arguments the model gave and what earlier
        hooks changed in them; `conversations` keeps each run's messages once read."""
        if item["call_id"] is None or not isinstance(item["args"], dict):
            return
        run_id = item["run_id"]
        if run_id not in conversations:
            rows = await self._store.rows(run_id)
            conversations[run_id] = rows.messages if rows is not None else ()
        given = given_args(conversations[run_id], item["call_id"])
        if given is not None:
            item["original_args"] = given
            item["rewritten"] = arg_changes(given, item["args"])

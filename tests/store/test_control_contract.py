"""The store contract's part that `hookagent serve` reads and keeps (sessions found by status
or title, questions by id and across sessions, bearer tokens), run on every store."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hookagent._errors import StoreError
from hookagent.store import Flush, QuestionRecord, SessionRecord, Store, TokenRecord

from .test_contract import question_record, run_record, started


def token_record(tid: str, digest: str, at: float = 1.0) -> TokenRecord:
    return TokenRecord(id=tid, name=f"name-{tid}", role="viewer", digest=digest, created_at=at)


async def titled(store: Store, sid: str, title: str, at: float, name: str | None = None) -> None:
    await store.create_session(SessionRecord(id=sid, name=name, created_at=at, updated_at=at))
    run = replace(run_record(f"r-{sid}", sid, "running", at=at), prompt=title)
    await store.create_run(run)
    await store.flush(
        Flush(run_id=run.id, status="waiting" if at > 2 else "completed", scalars="{}", at=at)
    )


async def test_sessions_are_found_by_status_and_by_title_or_name(store: Store) -> None:
    await titled(store, "a", "Fix the 100% bug", 1.0)
    await titled(store, "b", "deploy the app", 3.0, name="Deploy-1")
    await titled(store, "c", "DEPLOY again", 4.0)

    found = await store.find_sessions(search="deploy")
    assert [s.id for s in found] == ["c", "b"]  # newest first, any case, title or name
    assert [s.id for s in await store.find_sessions(search="deploy-1")] == ["b"]
    assert [s.id for s in await store.find_sessions(search="100%")] == ["a"]
    assert await store.find_sessions(search="1_0") == []  # _ and % are taken literally
    assert [s.id for s in await store.find_sessions(status="waiting")] == ["c", "b"]
    assert [s.id for s in await store.find_sessions(status="completed")] == ["a"]
    assert [s.id for s in await store.find_sessions(status="waiting", limit=1, offset=1)] == ["b"]
    assert [s.id for s in await store.find_sessions()] == ["c", "b", "a"]


async def test_a_question_is_read_by_id(store: Store) -> None:
    await started(store)
    q1 = question_record("q1")
    await store.flush(Flush(run_id="r1", status="waiting", scalars="{}", at=3.0, questions=[q1]))
    assert await store.question("q1") == q1
    assert await store.question("nope") is None


async def test_open_questions_are_the_unanswered_ones_of_waiting_runs_newest_first(
    store: Store,
) -> None:
    await started(store, rid="r1", sid="s1")
    await started(store, rid="r2", sid="s2")
    await started(store, rid="r3", sid="s3")
    qs = [
        question_record("q1", run_id="r1", session_id="s1", created_at=1.0),
        question_record("q2", run_id="r1", session_id="s1", created_at=5.0),
        question_record("q3", run_id="r2", session_id="s2", created_at=3.0),
    ]
    await store.flush(Flush(run_id="r1", status="waiting", scalars="{}", at=6, questions=qs[:2]))
    await store.flush(Flush(run_id="r2", status="waiting", scalars="{}", at=6, questions=qs[2:]))
    q4 = question_record("q4", run_id="r3", session_id="s3", created_at=9.0)
    await store.flush(Flush(run_id="r3", status="running", scalars="{}", at=9, questions=[q4]))

    found = await store.open_questions()
    assert [q.id for q in found] == ["q2", "q3", "q1"]  # q4's run is not waiting
    assert [q.id for q in await store.open_questions(limit=1, offset=1)] == ["q3"]
    await store.answer("q2", '{"approved": true}', 7.0)
    assert [q.id for q in await store.open_questions()] == ["q3", "q1"]


async def test_the_inbox_is_the_questions_runs_wait_on_now_with_their_sessions(
    store: Store,
) -> None:
    await started(store, rid="r1", sid="s1")
    await started(store, rid="r2", sid="s2")
    await started(store, rid="r3", sid="s3")
    qs = [
        question_record("q1", run_id="r1", session_id="s1", created_at=1.0),
        question_record("q2", run_id="r1", session_id="s1", created_at=5.0),
        question_record("q3", run_id="r2", session_id="s2", created_at=3.0),
        question_record("q4", run_id="r3", session_id="s3", created_at=9.0),
    ]
    await store.flush(Flush(run_id="r1", status="waiting", scalars="{}", at=6, questions=qs[:2]))
    await store.flush(Flush(run_id="r2", status="waiting", scalars="{}", at=6, questions=qs[2:3]))
    await store.flush(Flush(run_id="r3", status="running", scalars="{}", at=9, questions=qs[3:]))

    def shown(found: list[tuple[QuestionRecord, SessionRecord | None]]) -> list[tuple[str, str]]:
        return [(q.id, s.id if s is not None else "-") for q, s in found]

    # q1: its run went past it (q2); q4: its run is not waiting
    assert shown(await store.inbox()) == [("q2", "s1"), ("q3", "s2")]
    [(question, session)] = await store.inbox(limit=1, offset=1)
    assert question == qs[2] and session == await store.session("s2")
    await store.answer("q2", '{"approved": true}', 7.0)
    assert shown(await store.inbox()) == [("q3", "s2")]


async def test_tokens_are_kept_by_digest_listed_and_revoked_once(store: Store) -> None:
    first, second = token_record("t1", "d1", 1.0), token_record("t2", "d2", 2.0)
    await store.create_token(first)
    await store.create_token(second)
    assert await store.token("d2") == second
    assert await store.token("nope") is None
    assert await store.tokens() == [first, second]

    assert await store.revoke_token("t1", 5.0) is True
    assert await store.revoke_token("t1", 6.0) is False
    assert await store.revoke_token("nope", 6.0) is False
    assert await store.token("d1") == replace(first, revoked_at=5.0)


@pytest.mark.parametrize("clash", ["id", "digest"])
async def test_a_token_whose_id_or_digest_exists_is_a_store_error(store: Store, clash: str) -> None:
    await store.create_token(token_record("t1", "d1"))
    again = token_record("t1", "d9") if clash == "id" else token_record("t9", "d1")
    with pytest.raises(StoreError, match="exists already"):
        await store.create_token(again)
    assert [t.id for t in await store.tokens()] == ["t1"]

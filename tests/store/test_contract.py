"""The store contract (`hookagent.store._base.Store`), run on every store: `MemoryStore` is the
reference, and the others must behave the same."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hookagent._errors import LeaseLost, StoreError
from hookagent.store import (
    CallRecord,
    Checkpoint,
    Flush,
    JournalEntry,
    QuestionRecord,
    RunRecord,
    SessionRecord,
    Store,
)
from hookagent.store._records import CallState, RunStatus


def session_record(sid: str = "s1", name: str | None = None, at: float = 1.0) -> SessionRecord:
    return SessionRecord(id=sid, name=name, created_at=at, updated_at=at)


def run_record(
    rid: str = "r1",
    sid: str = "s1",
    status: RunStatus = "queued",
    at: float = 2.0,
    prompt: str | None = None,
) -> RunRecord:
    return RunRecord(
        id=rid,
        session_id=sid,
        status=status,
        created_at=at,
        updated_at=at,
        prompt=prompt,
        scalars='{"n": 0}',
        policy_version="p1",
    )


def question_record(
    qid: str,
    *,
    run_id: str = "r1",
    session_id: str = "s1",
    fingerprint: str | None = None,
    created_at: float = 1.0,
    expires_at: float | None = None,
) -> QuestionRecord:
    return QuestionRecord(
        id=qid,
        run_id=run_id,
        session_id=session_id,
        key=f"ask:{qid}",
        data=f'{{"text": "{qid}?"}}',
        fingerprint=fingerprint,
        created_at=created_at,
        expires_at=expires_at,
    )


def call_record(
    call_id: str, state: CallState, result: str | None = None, at: float = 1.0
) -> CallRecord:
    return CallRecord(
        call_id=call_id,
        step=0,
        name="bash",
        args='{"command":"ls"}',
        idempotency_key=f"key-{call_id}",
        state=state,
        result=result,
        updated_at=at,
    )


def entry(segment: int, key: str) -> JournalEntry:
    return JournalEntry(segment=segment, key=key, kind="fold", data=f'"{key}"')


def rows(*data: str, start: int = 0) -> list[tuple[int, str]]:
    return list(enumerate(data, start))


def keys(journal: object) -> list[tuple[int, str]]:
    assert isinstance(journal, (list, tuple))
    return [(e.segment, e.key) for e in journal]


async def started(
    store: Store, *, status: RunStatus = "queued", rid: str = "r1", sid: str = "s1"
) -> RunRecord:
    """A session (if new) and a run in it."""
    if await store.session(sid) is None:
        await store.create_session(session_record(sid))
    run = run_record(rid, sid, status)
    await store.create_run(run)
    return run


async def waiting(store: Store, *questions: QuestionRecord) -> None:
    await started(store)
    await store.flush(Flush(run_id="r1", status="waiting", scalars="{}", at=3.0))
    if questions:
        await store.flush(
            Flush(run_id="r1", status="waiting", scalars="{}", at=3.0, questions=list(questions))
        )


# -- sessions -----------------------------------------------------------------------------
async def test_a_session_is_found_by_id_and_by_name(store: Store) -> None:
    alpha = session_record("s1", "alpha")
    await store.create_session(alpha)
    await store.create_session(session_record("s2"))
    await store.create_session(session_record("s3", name="s2"))

    assert await store.session("s1") == alpha
    assert await store.session("alpha") == alpha
    assert (await store.session("s2")) == session_record("s2")  # the id wins over a name
    assert await store.session("nope") is None
    found = await store.session("s1")
    assert found is not None
    found.title = "changed"  # a copy: the store is not changed through it
    assert await store.session("s1") == alpha


async def test_a_taken_name_or_id_is_a_store_error(store: Store) -> None:
    await store.create_session(session_record("s1", "alpha"))
    with pytest.raises(StoreError, match="alpha"):
        await store.create_session(session_record("s2", "alpha"))
    with pytest.raises(StoreError, match="s1"):
        await store.create_session(session_record("s1", "beta"))
    await store.create_session(session_record("s3"))
    await store.create_session(session_record("s4"))  # many sessions may have no name
    assert [s.id for s in await store.sessions()] == ["s1", "s3", "s4"]
    assert await store.session("beta") is None


async def test_sessions_are_listed_newest_first_with_limit_and_offset(store: Store) -> None:
    for n in (3, 1, 5, 2, 4):
        await store.create_session(session_record(f"s{n}", at=float(n)))

    assert [s.id for s in await store.sessions()] == ["s5", "s4", "s3", "s2", "s1"]
    assert [s.id for s in await store.sessions(limit=2)] == ["s5", "s4"]
    assert [s.id for s in await store.sessions(limit=2, offset=2)] == ["s3", "s2"]
    assert await store.sessions(offset=10) == []

    await store.create_run(run_record("r1", "s1", at=9.0))  # s1 has news now
    assert [s.id for s in await store.sessions(limit=2)] == ["s1", "s5"]


# -- runs ---------------------------------------------------------------------------------
async def test_a_new_run_is_its_sessions_head_and_titles_it(store: Store) -> None:
    await store.create_session(session_record("s1"))
    first = run_record("r1", prompt="p" * 100, at=5.0)
    await store.create_run(first)

    session = await store.session("s1")
    assert session is not None
    assert (session.head_run_id, session.status, session.updated_at) == ("r1", "queued", 5.0)
    assert session.title == "p" * 80
    assert await store.run("r1") == first

    second = run_record("r2", status="running", prompt="second", at=6.0)
    await store.create_run(second)
    session = await store.session("s1")
    assert session is not None
    assert (session.head_run_id, session.status, session.updated_at) == ("r2", "running", 6.0)
    assert session.title == "p" * 80  # the first prompt names the session

    await store.create_session(session_record("s2"))
    await store.create_run(run_record("r3", "s2"))
    assert await store.runs("s1") == [first, second]
    assert await store.runs("nope") == []
    assert await store.run("nope") is None
    untitled = await store.session("s2")
    assert untitled is not None
    assert untitled.title == ""


async def test_a_run_needs_its_session_and_a_new_id(store: Store) -> None:
    with pytest.raises(StoreError, match="s1"):
        await store.create_run(run_record())
    await started(store)
    with pytest.raises(StoreError, match="r1"):
        await store.create_run(run_record())


async def test_flush_appends_rows_and_updates_the_run_and_its_session(store: Store) -> None:
    await started(store)
    point = Checkpoint(segment=1, messages=2, steps=1, decisions=1)
    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars='{"n": 1}',
            at=10.0,
            messages=rows("m0", "m1"),
            steps=rows("s0"),
            decisions=rows("d0"),
            checkpoint=point,
        )
    )
    loaded = await store.load("r1")
    assert loaded is not None
    assert list(loaded.messages) == ["m0", "m1"]
    assert list(loaded.steps) == ["s0"]
    assert list(loaded.decisions) == ["d0"]
    assert loaded.run == replace(
        run_record(), status="running", scalars='{"n": 1}', updated_at=10.0, checkpoint=point
    )
    session = await store.session("s1")
    assert session is not None
    assert (session.status, session.updated_at) == ("running", 10.0)

    later = Checkpoint(segment=2, messages=4, steps=2, decisions=2)
    await store.flush(
        Flush(
            run_id="r1",
            status="completed",
            scalars='{"n": 2}',
            at=8.0,  # a clock that went back does not move updated_at back
            messages=rows("m2", "m3", start=2),
            steps=rows("s1", start=1),
            decisions=rows("d1", start=1),
            checkpoint=later,
        )
    )
    loaded = await store.load("r1")
    assert loaded is not None
    assert list(loaded.messages) == ["m0", "m1", "m2", "m3"]
    assert list(loaded.steps) == ["s0", "s1"]
    assert list(loaded.decisions) == ["d0", "d1"]
    assert (loaded.run.status, loaded.run.scalars, loaded.run.updated_at) == (
        "completed",
        '{"n": 2}',
        10.0,
    )
    assert loaded.run.checkpoint == later
    session = await store.session("s1")
    assert session is not None
    assert (session.status, session.updated_at) == ("completed", 10.0)


async def test_flushing_an_older_run_leaves_its_session_alone(store: Store) -> None:
    await started(store, rid="r1")
    await started(store, rid="r2")
    await store.flush(Flush(run_id="r1", status="failed", scalars="{}", at=50.0))
    session = await store.session("s1")
    assert session is not None
    assert (session.head_run_id, session.status, session.updated_at) == ("r2", "queued", 2.0)
    run = await store.run("r1")
    assert run is not None
    assert (run.status, run.updated_at) == ("failed", 50.0)


async def test_flushing_an_unknown_run_is_a_store_error(store: Store) -> None:
    with pytest.raises(StoreError, match="nope"):
        await store.flush(Flush(run_id="nope", status="running", scalars="{}", at=1.0))


async def test_load_returns_rows_up_to_the_checkpoint_only(store: Store) -> None:
    await started(store)
    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars="{}",
            at=3.0,
            messages=rows("m0", "m1", "m2", "m3"),
            steps=rows("s0", "s1"),
            decisions=rows("d0", "d1"),
        )
    )
    loaded = await store.load("r1")
    assert loaded is not None
    assert (list(loaded.messages), list(loaded.steps), list(loaded.decisions)) == ([], [], [])

    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars="{}",
            at=4.0,
            checkpoint=Checkpoint(segment=1, messages=3, steps=1, decisions=2),
        )
    )
    loaded = await store.load("r1")
    assert loaded is not None
    assert list(loaded.messages) == ["m0", "m1", "m2"]
    assert list(loaded.steps) == ["s0"]
    assert list(loaded.decisions) == ["d0", "d1"]
    assert await store.load("nope") is None


async def test_load_returns_the_journal_from_the_checkpoint_segment_in_write_order(
    store: Store,
) -> None:
    await started(store)
    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars="{}",
            at=3.0,
            journal=[entry(0, "b"), entry(0, "a")],
            calls=[call_record("c1", "done", '"ok"')],
        )
    )
    loaded = await store.load("r1")
    assert loaded is not None
    assert keys(loaded.journal) == [(0, "b"), (0, "a")]  # no checkpoint: all of it

    # A segment begins; entries buffered before it (segment 0) are written with it.
    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars="{}",
            at=4.0,
            journal=[entry(0, "c")],
            checkpoint=Checkpoint(segment=1, messages=0, steps=0, decisions=0),
            calls=[call_record("c2", "planned")],
        )
    )
    loaded = await store.load("r1")
    assert loaded is not None
    assert keys(loaded.journal) == []

    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars="{}",
            at=5.0,
            journal=[entry(1, "z"), entry(1, "y")],
        )
    )
    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars="{}",
            at=6.0,
            journal=[entry(1, "x"), entry(2, "w")],
        )
    )
    loaded = await store.load("r1")
    assert loaded is not None
    assert keys(loaded.journal) == [(1, "z"), (1, "y"), (1, "x"), (2, "w")]
    assert loaded.journal[0] == entry(1, "z")
    # Every call record, whatever its segment.
    assert [c.call_id for c in loaded.calls] == ["c1", "c2"]
    assert loaded.calls[0] == call_record("c1", "done", '"ok"')


async def test_rows_returns_everything_stored_past_the_checkpoint_too(store: Store) -> None:
    await started(store)
    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars="{}",
            at=3.0,
            messages=rows("m2", "m3", start=2),
            journal=[entry(1, "a")],
            calls=[call_record("c1", "done", '"ok"')],
        )
    )
    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars='{"n": 1}',
            at=4.0,
            messages=rows("m0", "m1"),
            steps=rows("s0", "s1"),
            decisions=rows("d0"),
            checkpoint=Checkpoint(segment=1, messages=1, steps=1, decisions=0),
        )
    )
    stored = await store.rows("r1")
    assert stored is not None
    assert list(stored.messages) == ["m0", "m1", "m2", "m3"]  # in index order
    assert list(stored.steps) == ["s0", "s1"]
    assert list(stored.decisions) == ["d0"]
    assert list(stored.journal) == []
    assert list(stored.calls) == [call_record("c1", "done", '"ok"')]
    assert stored.run == await store.run("r1")
    assert await store.rows("nope") is None


def full_flush() -> Flush:
    return Flush(
        run_id="r1",
        status="waiting",
        scalars='{"n": 3}',
        at=7.0,
        messages=rows("m0", "m1"),
        steps=rows("s0"),
        decisions=rows("d0"),
        calls=[call_record("c1", "started")],
        checkpoint=Checkpoint(segment=1, messages=2, steps=1, decisions=1),
        questions=[question_record("q1")],
    )


async def snapshot(store: Store) -> tuple[object, ...]:
    loaded = await store.load("r1")
    assert loaded is not None
    return (
        loaded.run,
        list(loaded.messages),
        list(loaded.steps),
        list(loaded.decisions),
        list(loaded.journal),
        list(loaded.calls),
        await store.questions("r1", pending=False),
        await store.session("s1"),
        await store.sessions(),
    )


async def test_a_retried_flush_changes_nothing(store: Store) -> None:
    await started(store)
    await store.flush(full_flush())
    before = await snapshot(store)
    await store.flush(full_flush())
    assert await snapshot(store) == before


async def test_a_retried_flush_keeps_each_journal_entry_once(
    store: Store, request: pytest.FixtureRequest
) -> None:
    await started(store)
    flush = replace(full_flush(), journal=[entry(1, "b"), entry(1, "a")])
    await store.flush(flush)
    await store.flush(replace(full_flush(), journal=[entry(1, "c")]))
    before = await snapshot(store)
    await store.flush(flush)  # the first flush again: entries stay where they were
    assert await snapshot(store) == before
    loaded = await store.load("r1")
    assert loaded is not None
    assert keys(loaded.journal) == [(1, "b"), (1, "a"), (1, "c")]


async def test_a_call_record_moves_through_its_states(store: Store) -> None:
    await started(store)
    for n, state in enumerate(("planned", "approved", "started"), 1):
        await store.flush(
            Flush(
                run_id="r1",
                status="running",
                scalars="{}",
                at=float(n),
                calls=[call_record("c1", state, at=float(n))],
            )
        )
    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars="{}",
            at=4.0,
            calls=[call_record("c2", "planned", at=4.0)],
        )
    )
    loaded = await store.load("r1")
    assert loaded is not None
    assert [(c.call_id, c.state) for c in loaded.calls] == [("c1", "started"), ("c2", "planned")]

    await store.flush(
        Flush(
            run_id="r1",
            status="running",
            scalars="{}",
            at=5.0,
            calls=[call_record("c1", "done", '{"out": "a"}', at=5.0)],
        )
    )
    loaded = await store.load("r1")
    assert loaded is not None
    assert list(loaded.calls) == [  # one record per call, in the order calls were planned
        call_record("c1", "done", '{"out": "a"}', at=5.0),
        call_record("c2", "planned", at=4.0),
    ]


# -- questions ----------------------------------------------------------------------------
async def test_a_question_is_pending_until_answered_once(store: Store) -> None:
    q1, q2 = question_record("q1", created_at=2.0), question_record("q2", created_at=1.0)
    await waiting(store, q1, q2)
    assert await store.questions("r1") == [q2, q1]  # oldest first
    assert await store.questions("nope") == []

    assert await store.answer("q1", '{"approved": true}', 9.0) is True
    assert await store.answer("q1", '{"approved": false}', 10.0) is False
    assert await store.answer("nope", '{"approved": true}', 10.0) is False

    assert await store.questions("r1") == [q2]
    answered = replace(q1, answer='{"approved": true}', answered_at=9.0)
    assert await store.questions("r1", pending=False) == [q2, answered]


async def test_a_flush_never_overwrites_a_question(store: Store) -> None:
    q1 = question_record("q1")
    await waiting(store, q1)
    await store.answer("q1", '{"approved": true}', 9.0)
    await store.flush(
        Flush(
            run_id="r1",
            status="waiting",
            scalars="{}",
            at=10.0,
            questions=[replace(q1, data='{"text": "changed"}')],
        )
    )
    assert await store.questions("r1", pending=False) == [
        replace(q1, answer='{"approved": true}', answered_at=9.0)
    ]


async def test_approvals_are_the_answered_questions_newest_first(store: Store) -> None:
    await started(store, rid="r1", sid="s1")
    await started(store, rid="r2", sid="s2")
    asked = [
        question_record("q1", fingerprint="f", created_at=1.0),
        question_record("q2", fingerprint="f", created_at=2.0),
        question_record("q3", fingerprint="f", created_at=3.0),
        question_record("q4", fingerprint="g", created_at=4.0),
    ]
    await store.flush(Flush(run_id="r1", status="waiting", scalars="{}", at=5.0, questions=asked))
    other = question_record("q5", run_id="r2", session_id="s2", fingerprint="f")
    await store.flush(Flush(run_id="r2", status="waiting", scalars="{}", at=5.0, questions=[other]))
    for qid, at in (("q2", 6.0), ("q1", 8.0), ("q4", 9.0), ("q5", 9.5)):
        assert await store.answer(qid, f'{{"by": "{qid}"}}', at)

    approvals = await store.approvals("s1", "f")
    assert [(q.id, q.answered_at) for q in approvals] == [("q1", 8.0), ("q2", 6.0)]
    assert approvals[0] == replace(asked[0], answer='{"by": "q1"}', answered_at=8.0)
    assert await store.approvals("s1", "nope") == []
    assert [q.id for q in await store.approvals("s2", "f")] == ["q5"]


# -- workers ------------------------------------------------------------------------------
async def test_a_queued_run_is_claimed_by_one_worker_until_its_lease_expires(
    store: Store,
) -> None:
    await started(store)
    claimed = await store.claim("w1", now=100.0, lease=30.0)
    assert claimed == replace(run_record(), lease_owner="w1", lease_until=130.0, lease_epoch=1)
    assert await store.run("r1") == claimed
    assert await store.claim("w2", now=129.0, lease=30.0) is None

    again = await store.claim("w1", now=110.0, lease=30.0)  # its holder may take it again
    assert again is not None
    assert (again.lease_owner, again.lease_until, again.lease_epoch) == ("w1", 140.0, 2)
    assert await store.claim("w2", now=139.9, lease=30.0) is None

    taken = await store.claim("w2", now=140.0, lease=30.0)  # expired: w1 is presumed dead
    assert taken is not None
    got = (taken.id, taken.lease_owner, taken.lease_until, taken.lease_epoch)
    assert got == ("r1", "w2", 170.0, 3)
    assert await store.claim("w1", now=150.0, lease=30.0) is None


async def test_a_running_run_is_claimable_once_its_lease_ran_out(store: Store) -> None:
    await started(store)
    await store.flush(Flush(run_id="r1", status="running", scalars="{}", at=3.0))
    assert await store.claim("w1", now=100.0, lease=30.0) is not None
    assert await store.claim("w2", now=120.0, lease=30.0) is None
    taken = await store.claim("w2", now=131.0, lease=30.0)
    assert taken is not None
    assert (taken.status, taken.lease_owner) == ("running", "w2")


@pytest.mark.parametrize("status", ["completed", "failed", "stopped"])
async def test_a_finished_run_is_never_claimed(store: Store, status: RunStatus) -> None:
    await started(store)
    await store.flush(Flush(run_id="r1", status=status, scalars="{}", at=3.0))
    assert await store.claim("w1", now=100.0, lease=30.0) is None
    assert await store.claim_run("r1", "w1", now=100.0, lease=30.0) is None


async def test_a_waiting_run_is_claimable_once_its_question_is_answered(store: Store) -> None:
    await waiting(store, question_record("q1"))
    assert await store.claim("w1", now=100.0, lease=30.0) is None
    assert await store.answer("q1", '{"approved": true}', 101.0)
    claimed = await store.claim("w1", now=102.0, lease=30.0)
    assert claimed is not None
    assert (claimed.id, claimed.status) == ("r1", "waiting")


async def test_a_waiting_run_is_claimable_once_its_question_expired(store: Store) -> None:
    await waiting(store, question_record("q1", expires_at=150.0))
    assert await store.claim("w1", now=149.0, lease=30.0) is None
    claimed = await store.claim("w1", now=150.0, lease=30.0)
    assert claimed is not None
    assert claimed.id == "r1"


async def test_a_waiting_run_waits_for_all_its_questions(store: Store) -> None:
    await waiting(
        store, question_record("q1"), question_record("q2"), question_record("q3", expires_at=5.0)
    )
    assert await store.answer("q1", '{"approved": true}', 10.0)
    assert await store.claim("w1", now=100.0, lease=30.0) is None  # q2 still open
    assert await store.answer("q2", '{"approved": true}', 11.0)
    assert await store.claim("w1", now=100.0, lease=30.0) is not None


async def test_a_waiting_run_without_questions_is_claimable(store: Store) -> None:
    await waiting(store)
    assert await store.claim("w1", now=100.0, lease=30.0) is not None


async def test_claim_takes_the_run_updated_longest_ago(store: Store) -> None:
    await store.create_session(session_record())
    await store.create_run(run_record("r-new", at=20.0))
    await store.create_run(run_record("r-old", at=10.0))
    await store.create_run(run_record("r-mid", at=15.0))
    got = [await store.claim(f"w{n}", now=100.0, lease=30.0) for n in range(4)]
    assert [r.id if r else None for r in got] == ["r-old", "r-mid", "r-new", None]


async def test_claim_with_a_run_id_takes_that_run_only(store: Store) -> None:
    await started(store, rid="r1")
    await started(store, rid="r2")
    claimed = await store.claim_run("r2", "w1", now=100.0, lease=30.0)
    assert claimed is not None
    assert claimed.id == "r2"
    assert await store.claim_run("r2", "w2", now=100.0, lease=30.0) is None  # r1 is free
    assert await store.claim_run("nope", "w2", now=100.0, lease=30.0) is None
    other = await store.claim("w2", now=100.0, lease=30.0)
    assert other is not None
    assert other.id == "r1"


async def test_renew_and_release_belong_to_the_lease_holder(store: Store) -> None:
    await started(store)
    assert await store.claim("w1", now=100.0, lease=30.0) is not None
    assert await store.renew("r1", "w1", now=120.0, lease=30.0, epoch=1) is True
    run = await store.run("r1")
    assert run is not None
    assert (run.lease_owner, run.lease_until) == ("w1", 150.0)
    assert await store.claim("w2", now=140.0, lease=30.0) is None

    assert await store.renew("r1", "w2", now=140.0, lease=30.0, epoch=1) is False
    assert await store.renew("nope", "w1", now=140.0, lease=30.0, epoch=1) is False
    await store.release("r1", "w2", epoch=1)  # not w2's to release
    assert await store.claim("w2", now=140.0, lease=30.0) is None

    await store.release("r1", "w1", epoch=1)
    run = await store.run("r1")
    assert run is not None  # the lease ends; the name of its last holder stays
    assert (run.lease_owner, run.lease_until, run.lease_epoch) == ("w1", 0.0, 1)
    taken = await store.claim("w2", now=141.0, lease=30.0)
    assert taken is not None
    assert (taken.lease_owner, taken.lease_epoch) == ("w2", 2)
    assert await store.renew("r1", "w1", now=141.0, lease=30.0, epoch=1) is False
    await store.release("nope", "w2", epoch=2)  # an unknown run: nothing to do


async def test_renew_and_release_of_an_older_epoch_do_nothing(store: Store) -> None:
    """A worker restarted under the same name claims its run again: the lease it held before
    (a frozen process of that name) can neither renew nor release the new one."""
    await started(store)
    assert await store.claim("w1", now=100.0, lease=30.0) is not None
    again = await store.claim("w1", now=101.0, lease=30.0)
    assert again is not None and again.lease_epoch == 2
    assert await store.renew("r1", "w1", now=120.0, lease=60.0, epoch=1) is False
    await store.release("r1", "w1", epoch=1)
    run = await store.run("r1")
    assert run is not None
    assert (run.lease_owner, run.lease_until, run.lease_epoch) == ("w1", 131.0, 2)
    assert await store.claim("w2", now=130.0, lease=30.0) is None  # still held


async def test_a_run_created_held_starts_at_the_epoch_it_names(store: Store) -> None:
    await store.create_session(session_record())
    held = replace(run_record(status="running"), lease_owner="w1", lease_until=50.0)
    await store.create_run(replace(held, lease_epoch=1))
    run = await store.run("r1")
    assert run is not None and (run.lease_owner, run.lease_epoch) == ("w1", 1)
    await store.flush(fenced("w1", 1, status="running"))
    taken = await store.claim("w2", now=60.0, lease=30.0)
    assert taken is not None and taken.lease_epoch == 2


def fenced(worker: str, epoch: int, *, status: RunStatus = "waiting", at: float = 7.0) -> Flush:
    return replace(full_flush(), worker=worker, epoch=epoch, status=status, at=at)


async def test_a_flush_from_a_worker_that_lost_its_lease_is_refused_and_writes_nothing(
    store: Store,
) -> None:
    await started(store)
    assert await store.claim("w1", 10.0, 5.0) is not None
    assert await store.claim("w2", 20.0, 5.0) is not None  # w1's lease ran out
    with pytest.raises(LeaseLost, match="w1 no longer holds it, w2 took the run over") as lost:
        await store.flush(fenced("w1", 1))
    assert (lost.value.run_id, lost.value.worker, lost.value.holder) == ("r1", "w1", "w2")
    assert isinstance(lost.value, StoreError)
    rows_ = await store.rows("r1")
    assert rows_ is not None and list(rows_.messages) == [] and rows_.run.status == "queued"
    assert await store.questions("r1") == []
    with pytest.raises(StoreError, match="a write that holds no lease is refused"):
        await store.flush(replace(full_flush(), worker=None))
    await store.flush(fenced("w2", 2))  # the holder may write


async def test_a_stale_flush_is_refused_after_the_new_holder_released_the_run(
    store: Store,
) -> None:
    """The frozen writer wakes once the run was taken over, finished and released: the lease
    is free, but it is not the one the writer claimed, so its write is refused."""
    await started(store)
    assert await store.claim("w1", 10.0, 5.0) is not None
    assert await store.claim("w2", 20.0, 5.0) is not None
    done = Flush(run_id="r1", status="completed", scalars="{}", at=21.0, worker="w2", epoch=2)
    await store.flush(done)
    await store.release("r1", "w2", epoch=2)
    with pytest.raises(LeaseLost, match="w2 took the run over") as lost:
        await store.flush(fenced("w1", 1, status="running"))
    assert lost.value.holder == "w2"
    rows_ = await store.rows("r1")
    assert rows_ is not None and list(rows_.messages) == [] and rows_.run.status == "completed"


async def test_a_flush_under_the_same_name_but_an_older_epoch_is_refused(store: Store) -> None:
    await started(store)
    assert await store.claim("w1", 10.0, 5.0) is not None
    assert await store.claim("w1", 20.0, 5.0) is not None  # the same name, claimed again
    with pytest.raises(LeaseLost, match="under the same name w1"):
        await store.flush(fenced("w1", 1))
    await store.flush(fenced("w1", 2))


async def test_a_flush_extends_the_lease_and_never_shortens_it(store: Store) -> None:
    await started(store)
    assert await store.claim("w1", now=10.0, lease=5.0) is not None  # until 15
    await store.flush(replace(fenced("w1", 1, at=30.0), lease=5.0))  # late; nobody claimed
    run = await store.run("r1")
    assert run is not None and run.lease_until == 35.0
    assert await store.claim("w2", now=34.0, lease=5.0) is None
    await store.flush(replace(fenced("w1", 1, at=31.0), lease=1.0))
    await store.flush(fenced("w1", 1, at=32.0))  # no lease given: the lease stands
    run = await store.run("r1")
    assert run is not None and run.lease_until == 35.0


async def test_a_run_nobody_ever_held_takes_writes_that_name_no_worker(store: Store) -> None:
    await started(store, status="completed")
    await store.flush(replace(full_flush(), status="completed", lease=60.0))
    run = await store.run("r1")
    assert run is not None
    assert (run.lease_owner, run.lease_until, run.lease_epoch) == (None, 0.0, 0)
    with pytest.raises(LeaseLost):
        await store.flush(fenced("w1", 0))


async def test_a_claim_over_an_epoch_takes_a_live_lease_of_that_epoch_only(
    store: Store,
) -> None:
    await started(store)
    assert await store.claim("w1", now=10.0, lease=60.0) is not None
    assert await store.claim_run("r1", "w2", now=11.0, lease=30.0) is None
    assert await store.claim_run("r1", "w2", now=11.0, lease=30.0, over_epoch=2) is None
    taken = await store.claim_run("r1", "w2", now=11.0, lease=30.0, over_epoch=1)
    assert taken is not None and (taken.lease_owner, taken.lease_epoch) == ("w2", 2)
    assert await store.claim_run("r1", "w3", now=12.0, lease=30.0, over_epoch=1) is None

"""The `Journal` contract: what the durable layer relies on from a backend that keeps runs.

Every backend runs these: today `Durable` over each store (memory, SQLite, PostgreSQL).
A backend joins with a `Backend` that starts a run, takes it up again as a new process
would (after a crash: only what a barrier wrote survives), and answers a waiting question.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import pytest

from hookagent.durable._answers import answer_json
from hookagent.durable._runner import DurableRuns
from hookagent.durable._seam import Journal, Suspended
from hookagent.kernel._approval import Question
from hookagent.kernel._state import RunState
from hookagent.store import Store

pytestmark = pytest.mark.asyncio


@dataclass
class Backend:
    """Runs kept in `store`, each process a `DurableRuns` of its own."""

    store: Store

    async def start(self, state: RunState) -> Journal:
        return await DurableRuns(self.store, "policy-1", worker="first").start("go", state, None)

    async def take_up(self, run_id: str) -> tuple[RunState, Journal]:
        """The run as a new process finds it (its lease let go by the one before)."""
        runs = DurableRuns(self.store, "policy-1", worker="second")
        record = await self.store.run(run_id)
        assert record is not None and record.lease_owner is not None
        await self.store.release(run_id, record.lease_owner, epoch=record.lease_epoch)
        state, journal, _ = await runs.reopen(run_id)
        return state, journal

    async def answer(self, run_id: str, *, approved: bool) -> None:
        [waiting] = await self.store.questions(run_id, pending=True)
        assert await self.store.answer(
            waiting.id, answer_json(approved, by="contract"), time.time()
        )


@pytest.fixture
def backend(store: Store) -> Backend:
    return Backend(store)


def question(state: RunState) -> Question:
    return Question(
        point="before_tool",
        hook="user:guard",
        question="run it?",
        run_id=state.run_id,
        step=1,
        call_id="c1",
        tool_name="echo",
        args={"text": "hi"},
    )


async def test_keys_repeat_in_order_so_a_segment_run_again_meets_the_same_ones(
    backend: Backend,
) -> None:
    state = RunState()
    journal = await backend.start(state)
    first = [
        journal.key("fold", 1, None),
        journal.key("fold", 1, None),
        journal.key("tool", 1, "c"),
    ]
    assert len(set(first)) == 3
    await journal.checkpoint(state)
    assert journal.segment == 1
    again = [
        journal.key("fold", 1, None),
        journal.key("fold", 1, None),
        journal.key("tool", 1, "c"),
    ]
    assert again == first  # each segment counts afresh


async def test_what_a_barrier_wrote_is_found_by_the_next_process_and_nothing_after(
    backend: Backend,
) -> None:
    state = RunState()
    journal = await backend.start(state)
    await journal.checkpoint(state)
    kept, lost = journal.key("model", 1, None), journal.key("model", 1, None)
    journal.record(kept, "model", '"kept"')
    await journal.barrier(state)
    journal.record(lost, "model", '"lost"')  # no barrier: a crash loses it
    _, again = await backend.take_up(state.run_id)
    assert again.segment == 1
    found = again.find(again.key("model", 1, None))
    assert found is not None and (found.kind, found.data) == ("model", '"kept"')
    assert again.find(again.key("model", 1, None)) is None


async def test_a_new_segment_does_not_replay_the_one_before(backend: Backend) -> None:
    state = RunState()
    journal = await backend.start(state)
    await journal.checkpoint(state)
    journal.record(journal.key("fold", 1, None), "fold", '{"t":"none"}')
    await journal.barrier(state)
    await journal.checkpoint(state)
    await journal.barrier(state)
    _, again = await backend.take_up(state.run_id)
    assert again.segment == 2
    assert again.find(again.key("fold", 1, None)) is None


async def test_a_call_started_and_never_ended_is_in_doubt_and_a_finished_one_is_not(
    backend: Backend,
) -> None:
    state = RunState()
    journal = await backend.start(state)
    await journal.checkpoint(state)
    journal.call("c1", 1, "echo", {"text": "a"}, "planned")
    journal.call("c2", 1, "echo", {"text": "b"}, "planned")
    journal.call("c1", 1, "echo", {"text": "a"}, "started")
    journal.call("c2", 1, "echo", {"text": "b"}, "started")
    await journal.barrier(state)
    journal.finish_call("c2", "done", '{"content": "b"}')
    await journal.barrier(state)
    _, again = await backend.take_up(state.run_id)
    assert set(again.doubtful) == {"c1"}
    assert again.calls["c2"].state == "done"
    assert again.calls["c1"].idempotency_key == journal.calls["c1"].idempotency_key


async def test_a_paused_question_waits_until_answered_then_gives_the_answer(
    backend: Backend,
) -> None:
    state = RunState()
    journal = await backend.start(state)
    await journal.checkpoint(state)
    key = journal.key("before_tool", 1, "c1") + ":q0"
    assert await journal.answer_for(question(state), key) is None
    with pytest.raises(Suspended):
        await journal.pause(question(state), key, state)
    with pytest.raises(Suspended):  # kept, and still waiting
        await journal.answer_for(question(state), key)
    await backend.answer(state.run_id, approved=True)
    _, again = await backend.take_up(state.run_id)
    answer = await again.answer_for(question(state), key)
    assert answer is not None and answer.approved and "contract" in answer.by


async def test_an_answer_for_other_arguments_does_not_count(backend: Backend) -> None:
    state = RunState()
    journal = await backend.start(state)
    await journal.checkpoint(state)
    key = journal.key("before_tool", 1, "c1") + ":q0"
    with pytest.raises(Suspended):
        await journal.pause(question(state), key, state)
    await backend.answer(state.run_id, approved=True)
    _, again = await backend.take_up(state.run_id)
    changed = replace(question(state), args={"text": "rewritten"})
    assert await again.answer_for(changed, key) is None  # asked again, for what it is now

"""10. A store holding many sessions: the operations a user or worker does stay O(log n).

Two SQLite stores are filled the same way, one ten sessions for every 100 runs: 100 sessions
and 1,000 runs, then 10,000 sessions and 100,000 runs. Of the runs, 95% are completed, 3%
wait on an unanswered question, 1% are queued and 1% are running under another worker's live
lease, as in a store a fleet has used for a while. On each store, in the same round: list
the newest sessions (`sessions ls`), open one session and its runs (`sessions show`), claim
the next runnable run and release it (a worker), and answer a question. The ratio of the
big store's time to the small one's is what grows with the store; an index keeps it near 1.
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

from harness import Samples, Verdict, header, paired_ratio
from hookagent.store._sqlite import SQLiteStore
from hookagent.store._sqlite_sql import QUESTION_COLUMNS, RUN_COLUMNS, SESSION_COLUMNS

SIZES: Final = (1_000, 100_000)
"""Runs in the small and the big store."""
RUNS_PER_SESSION: Final = 10
GROWTH_TARGET: Final = 2.0
"""The big store's time over the small one's, per operation."""
OPERATIONS: Final = ("sessions ls", "open a session", "claim and release", "answer")
WORKER: Final = "bench-worker"


def fill(path: Path, runs: int) -> list[str]:
    """The store at `path`, filled in one transaction; the ids of its unanswered questions."""
    now = time.time()
    sessions, rows, questions = [], [], []
    for s in range(runs // RUNS_PER_SESSION):
        sid = f"s{s:06d}"
        head = f"r{s:06d}-{RUNS_PER_SESSION - 1}"
        sessions.append((sid, f"name-{s}", now - s, now - s, head, None, "idle", f"title {s}"))
        for r in range(RUNS_PER_SESSION):
            n = s * RUNS_PER_SESSION + r
            rid = f"r{s:06d}-{r}"
            status, owner, until = "completed", None, 0.0
            if n % 100 in (1, 2, 3):
                status = "waiting"
                questions.append((f"q{n}", rid, sid, "ask:1::0", "{}", None, now, None, None, None))
            elif n % 100 == 4:
                status = "queued"
            elif n % 100 == 5:
                status, owner, until = "running", "other-worker", now + 3600
            rows.append(
                (rid, sid, status, now - n, now - n, None, "go", "{}", None, owner, until, "", 1)
            )
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN")
        conn.executemany(f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES ({marks(8)})", sessions)
        conn.executemany(f"INSERT INTO runs ({RUN_COLUMNS}) VALUES ({marks(13)})", rows)
        conn.executemany(
            f"INSERT INTO questions ({QUESTION_COLUMNS}) VALUES ({marks(10)})", questions
        )
        conn.execute("COMMIT")
        conn.execute("ANALYZE")
    finally:
        conn.close()
    return [q[0] for q in questions]


def rearm(store: SQLiteStore, questions: list[str]) -> None:
    conn = sqlite3.connect(store.url, isolation_level=None)
    try:
        conn.execute("UPDATE questions SET answer = NULL, answered_at = NULL")
    finally:
        conn.close()


def marks(n: int) -> str:
    return ", ".join("?" * n)


async def opened(path: Path, runs: int) -> tuple[SQLiteStore, list[str]]:
    store = SQLiteStore(path)
    await store.open()  # creates the schema
    await store.close()
    questions = fill(path, runs)
    store = SQLiteStore(path)
    await store.open()
    return store, questions


def operations(
    store: SQLiteStore, questions: list[str]
) -> dict[str, Callable[[], Awaitable[object]]]:
    middle = f"name-{len(questions) * 10 // 3 // RUNS_PER_SESSION // 2}"
    pending = list(questions)

    async def listing() -> object:
        return await store.sessions(limit=50)

    async def show() -> object:
        session = await store.session(middle)
        assert session is not None
        return await store.runs(session.id)

    async def claim() -> object:
        run = await store.claim(WORKER, time.time(), 60.0)
        assert run is not None and run.status in ("queued", "waiting", "running"), run
        await store.release(run.id, WORKER, epoch=run.lease_epoch)
        return run

    async def answer() -> object:
        if not pending:  # every question answered: ask them all again (not timed much)
            rearm(store, questions)
            pending.extend(questions)
        assert await store.answer(pending.pop(), "allow", time.time())
        return None

    return dict(zip(OPERATIONS, (listing, show, claim, answer), strict=True))


async def bench_many_sessions(repeats: int) -> list[Verdict]:
    header("10. Many sessions: SQLite store with 1,000 vs 100,000 runs")
    calls = 20
    with tempfile.TemporaryDirectory() as folder:
        stores = {n: await opened(Path(folder) / f"{n}.db", n) for n in SIZES}
        try:
            ops = {n: operations(*stores[n]) for n in SIZES}
            times = {(n, op): Samples() for n in SIZES for op in OPERATIONS}
            for round_no in range(repeats + 1):  # the first round warms up and is dropped
                for op in OPERATIONS:
                    for n in SIZES if round_no % 2 else reversed(SIZES):
                        started = time.perf_counter()
                        for _ in range(calls):
                            await ops[n][op]()
                        if round_no:
                            times[n, op].values.append((time.perf_counter() - started) / calls)
        finally:
            for store, _ in stores.values():
                await store.close()
    small, big = SIZES
    print(f"{'operation':<22}{'us at 1k runs':>16}{'us at 100k runs':>18}{'ratio':>8}")
    verdicts = []
    for op in OPERATIONS:
        a, b = times[small, op], times[big, op]
        ratio = paired_ratio(b, a)
        print(f"{op:<22}{a.median * 1e6:>16.1f}{b.median * 1e6:>18.1f}{ratio:>8.2f}")
        verdicts.append(Verdict(f"many sessions: {op}, 100k/1k runs", ratio, "x", GROWTH_TARGET))
    return verdicts


if __name__ == "__main__":
    for verdict in asyncio.run(bench_many_sessions(5)):
        print(verdict)

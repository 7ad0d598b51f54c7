"""The durable backends the run contract is written against, behind one interface.

A store backend (SQLite, PostgreSQL) runs the agent in this process with the store, in a
session; a question pauses the run, and an answer in the store and `resume` take it on. Its
crash is the scenario tool or model raising `Crash` at the hold point, as a process dying
there would leave the store; `resume` is the process that takes the run over.

The Temporal backend runs the agent on an in-process worker; a question waits in the
workflow for the `answer` update. Its crash is a worker process killed with SIGKILL at the
hold point, and another worker process finishing the run (`temporal.kill`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

from temporalio.client import Client

import hookagent as h
from hookagent.durable._answers import answer_json
from hookagent.store import Store
from hookagent.temporal import TemporalRuns, agent_worker
from temporal.kill import killed
from temporal.worker_process import Crash, build

__all__ = ["Backend", "StoreBackend", "TemporalBackend"]


class Backend(Protocol):
    async def run(self, agent: h.Agent, prompt: str) -> h.RunResult[Any]:
        """Run to the end (no question waits)."""
        ...

    async def asked(self, agent: h.Agent, prompt: str) -> tuple[str, list[dict[str, Any]]]:
        """Run until the run waits on a question: its id, the questions (`question_json`
        with their `id`)."""
        ...

    async def answered(
        self, agent: h.Agent, run_id: str, question_id: str, approved: bool
    ) -> h.RunResult[Any]:
        """Answer the question; the run goes on to its end."""
        ...

    async def crashed(self, folder: Path, kind: str, where: str) -> h.RunResult[Any]:
        """The crash scenario (`worker_process.build(folder, kind, where)`), its process
        lost at the hold point `where` and the run finished by another."""
        ...


class StoreBackend:
    def __init__(self, store: Store) -> None:
        self.store = store

    def _kept(self, agent: h.Agent) -> h.Agent:
        agent.store = self.store
        return agent

    async def run(self, agent: h.Agent, prompt: str) -> h.RunResult[Any]:
        return await self._kept(agent).run(prompt, session=uuid.uuid4().hex)

    async def asked(self, agent: h.Agent, prompt: str) -> tuple[str, list[dict[str, Any]]]:
        result = await self._kept(agent).run(prompt, session=uuid.uuid4().hex)
        assert result.status == "waiting", result
        found = await self.store.questions(result.run_id)
        return result.run_id, [{**json.loads(q.data), "id": q.id} for q in found]

    async def answered(
        self, agent: h.Agent, run_id: str, question_id: str, approved: bool
    ) -> h.RunResult[Any]:
        assert await self.store.answer(question_id, answer_json(approved), time.time())
        return await self._kept(agent).resume(run_id)

    async def crashed(self, folder: Path, kind: str, where: str) -> h.RunResult[Any]:
        session = uuid.uuid4().hex
        (folder / "crash").touch()
        with contextlib.suppress(Crash):
            await self._kept(build(folder, kind, where)).run("log", session=session)
        assert not (folder / "crash").exists(), "the scenario did not crash"
        record = await self.store.session(session)
        assert record is not None and record.head_run_id is not None
        return await self._kept(build(folder, kind, where)).resume(record.head_run_id)


class TemporalBackend:
    def __init__(self, client: Client, address: str) -> None:
        self.client, self.address = client, address
        self._workers = contextlib.AsyncExitStack()
        self._runs: dict[str, TemporalRuns] = {}

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[TemporalBackend]:
        async with self._workers:
            yield self

    async def _on_worker(self, agent: h.Agent) -> TemporalRuns:
        queue = f"q-{uuid.uuid4().hex[:8]}"
        await self._workers.enter_async_context(agent_worker(self.client, agent, queue))
        return TemporalRuns(agent, self.client, queue)

    async def run(self, agent: h.Agent, prompt: str) -> h.RunResult[Any]:
        return await (await self._on_worker(agent)).run(prompt)

    async def asked(self, agent: h.Agent, prompt: str) -> tuple[str, list[dict[str, Any]]]:
        runs = await self._on_worker(agent)
        run_id = await runs.start(prompt)
        self._runs[run_id] = runs
        for _ in range(1200):  # up to a minute
            found = await runs.questions(run_id)
            if found:
                return run_id, found
            await asyncio.sleep(0.05)
        raise AssertionError("the run asked nothing")

    async def answered(
        self, agent: h.Agent, run_id: str, question_id: str, approved: bool
    ) -> h.RunResult[Any]:
        runs = self._runs[run_id]
        await runs.answer(run_id, question_id, approved)
        return await runs.result(run_id)

    async def crashed(self, folder: Path, kind: str, where: str) -> h.RunResult[Any]:
        return await killed(self.client, self.address, folder, kind, where)

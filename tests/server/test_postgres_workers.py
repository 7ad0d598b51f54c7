"""`hookagent serve` over PostgreSQL, with the run in other processes: a `hookagent run`
process pauses on a question, the server shows it, an approver answers over HTTP, and a
`hookagent worker` process resumes the run while the server streams what it records."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import uvicorn

from cli.run_cli import hookagent
from hookagent.server import create_app
from hookagent.store import _tokens as tokens
from hookagent.store._open import open_store
from store import pg_server  # tests/ is on the path

from .conftest import bearer
from .test_control import PLUGIN, SCRIPT
from .test_streams import events

pytestmark = pytest.mark.postgres


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    url = pg_server.ensure_postgres()
    if url is None:
        pytest.skip(f"no PostgreSQL for the server tests: {pg_server.reason()}")
    async with pg_server.fresh_schema(url) as schema:
        yield schema


async def serving(app: Any) -> tuple[uvicorn.Server, asyncio.Task[None], str]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(2000):  # uvicorn says when it listens by a flag only
        if server.started:
            break
        await asyncio.sleep(0.01)
    assert server.started
    return server, task, f"http://127.0.0.1:{sock.getsockname()[1]}"


async def test_a_worker_process_resumes_a_run_answered_in_the_server_and_it_shows_live(
    tmp_path: Path, pg_url: str
) -> None:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    flags = ["-m", "scripted:turns.json", "-p", "plugin.py", "--store", pg_url]
    paused = hookagent(tmp_path, "run", "ship it", *flags, "--session", "ops", "--json")
    assert paused.returncode == 3, paused.stderr
    run_id = json.loads(paused.stdout)["run_id"]

    store = open_store(pg_url)
    await store.open()
    try:
        viewer = bearer((await tokens.issue(store, "viewer", name="watcher"))[1])
        approver = bearer((await tokens.issue(store, "approver", name="oncall"))[1])
        server, task, url = await serving(create_app(store, poll=0.02))
        try:
            async with httpx2.AsyncClient(base_url=url, timeout=30) as client:
                inbox = (await client.get("/inbox", headers=viewer)).json()
                [item] = inbox["items"]
                assert (item["run_id"], item["tool"]) == (run_id, "deploy")
                answered = await client.post(
                    f"/questions/{item['id']}/answer",
                    json={"decision": "approve", "reason": "checked"},
                    headers=approver,
                )
                assert answered.status_code == 200, answered.text

                seen: list[dict[str, Any]] = []
                worker: asyncio.Task[Any] | None = None
                async for event in events(client, f"/runs/{run_id}/events", viewer, until="end"):
                    seen.append(event)
                    if worker is None:  # the stream is open: let another process move the run
                        worker = asyncio.create_task(
                            asyncio.to_thread(
                                hookagent, tmp_path, "worker", "--once", "--store", pg_url
                            )
                        )
                assert worker is not None
                done = await worker
                assert done.returncode == 0, done.stderr

                assert seen[-1] == {"event": "end", "data": {"status": "completed"}}
                calls = [e["data"] for e in seen if e["event"] == "tool_call"]
                assert calls[-1]["call_id"] == "c1" and calls[-1]["state"] == "done"
                decisions = (await client.get(f"/runs/{run_id}/decisions", headers=viewer)).json()
                answers = [d.get("answer") or "" for d in decisions["items"]]
                assert any("api:oncall" in answer for answer in answers), answers
        finally:
            server.should_exit = True
            await asyncio.wait_for(task, 20)
    finally:
        await store.close()
    assert (tmp_path / "deployed.txt").read_text() == "deployed prod\n"

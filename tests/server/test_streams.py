"""The live streams over a real uvicorn on a loopback port: the inbox shows a paused run's
question and then its answer, a run's stream shows its rows as another agent records them
and ends when the run does, resuming after a Last-Event-ID; the same tokens as the API."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
import uvicorn

from hookagent.server import create_app

from .conftest import World


@pytest.fixture
async def live(world: World) -> AsyncIterator[httpx2.AsyncClient]:
    async with serving(create_app(world.store, poll=0.02)) as client:
        yield client


@contextlib.asynccontextmanager
async def serving(app: Any) -> AsyncIterator[httpx2.AsyncClient]:
    """`app` served by uvicorn on a free loopback port, and a client of it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, lifespan="off", log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(2000):  # uvicorn says when it listens by a flag only
        if server.started:
            break
        await asyncio.sleep(0.01)
    assert server.started
    async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=20) as client:
        yield client
    server.should_exit = True
    await asyncio.wait_for(task, 20)
    sock.close()


async def events(
    client: httpx2.AsyncClient, path: str, headers: dict[str, str], until: str
) -> AsyncIterator[dict[str, Any]]:
    """Each event of the stream at `path` as {event, id, data}, up to one named `until`."""
    async with client.stream("GET", path, headers=headers) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        event: dict[str, Any] = {}
        async for line in response.aiter_lines():
            if line.startswith(("event:", "id:", "data:")):
                key, _, value = line.partition(":")
                event[key] = json.loads(value) if key == "data" else value.strip()
            elif not line and "event" in event:
                yield event
                if event["event"] == until:
                    return
                event = {}


async def test_the_inbox_stream_shows_a_waiting_question_then_its_answer(
    world: World, live: httpx2.AsyncClient
) -> None:
    seen = []
    async for event in events(live, "/inbox/events", world.viewer, until="answered"):
        seen.append(event)
        if event["event"] == "asked":
            question = event["data"]
            assert (question["tool"], question["args"]) == ("deploy", {"env": "prod"})
            assert question["session"]["name"] == "ops" and question["run_id"] == world.run_id
            response = await live.post(
                f"/questions/{question['id']}/answer",
                json={"decision": "approve", "reason": "go"},
                headers=world.approver,
            )
            assert response.status_code == 200, response.text
    assert [e["event"] for e in seen] == ["asked", "answered"]
    answered = seen[1]["data"]
    assert answered["answer"]["by"] == "api:approver-alice" and answered["session"]["name"] == "ops"
    resumed = await world.resume()
    assert resumed.status == "completed"


async def test_a_runs_stream_shows_what_a_resuming_agent_records_and_ends_with_it(
    world: World, live: httpx2.AsyncClient
) -> None:
    [question] = await world.store.questions(world.run_id)
    response = await live.post(
        f"/questions/{question.id}/answer", json={"decision": "approve"}, headers=world.approver
    )
    assert response.status_code == 200, response.text
    seen = []
    path = f"/runs/{world.run_id}/events"
    async for event in events(live, path, world.viewer, until="end"):
        seen.append(event)
        if event["event"] == "status" and event["data"]["status"] == "waiting":
            assert (await world.resume()).status == "completed"
    kinds = [e["event"] for e in seen]
    assert kinds[0] == "status" and kinds[-2:] == ["status", "end"]
    assert [e["data"]["index"] for e in seen if e["event"] == "step"] == [1, 2]
    calls = [e["data"] for e in seen if e["event"] == "tool_call"]
    assert calls[-1]["call_id"] == "c1" and calls[-1]["state"] != "started"
    assert any(e["event"] == "decision" for e in seen)
    assert seen[-2]["data"]["status"] == "completed" and seen[-1]["data"] == {"status": "completed"}

    after_first_step = next(e["id"] for e in seen if e["event"] == "step")
    again = [
        e
        async for e in events(
            live, path, {**world.viewer, "Last-Event-ID": after_first_step}, until="end"
        )
    ]
    assert [e["data"]["index"] for e in again if e["event"] == "step"] == [2]
    assert again[0]["event"] == "status" and again[0]["data"]["status"] == "completed"
    assert again[-1]["event"] == "end"


async def test_streams_need_a_token_and_a_known_run(world: World, live: httpx2.AsyncClient) -> None:
    for path in ("/inbox/events", f"/runs/{world.run_id}/events"):
        response = await live.get(path)
        assert response.status_code == 401
        assert response.headers["content-type"] == "application/problem+json"
    missing = await live.get("/runs/nope/events", headers=world.viewer)
    assert missing.status_code == 404 and "nope" in missing.json()["detail"]
    bad = await live.get(
        f"/runs/{world.run_id}/events", headers={**world.viewer, "Last-Event-ID": "x"}
    )
    assert bad.status_code == 400 and "Last-Event-ID" in bad.json()["detail"]

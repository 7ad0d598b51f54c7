"""`hookagent serve` over runs on Temporal: the inbox lists the questions waiting runs hold
(without a worker), an answer is the run's `answer` update with the store's rules (a stale
fingerprint or question is a 409, a viewer's a 403), sessions and runs read through
visibility and `inspect`, what only a store offers is a 501 naming it, and the tokens are
the store's."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from temporalio.client import Client

from cli.run_cli import hookagent
from cli.test_serve_cli import serve, tokens
from hookagent.server import create_app
from hookagent.store import _tokens as store_tokens
from hookagent.store._sqlite import SQLiteStore
from hookagent.temporal import TemporalRuns, agent_worker
from server.conftest import bearer
from server.test_pages import csrf_of
from server.test_streams import events, serving
from temporal.test_runs import build, queue, waiting

pytestmark = pytest.mark.temporal


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path / "sessions.db")
    await opened.open()
    yield opened
    await opened.close()


@contextlib.asynccontextmanager
async def asking(
    client: Client, *envs: str, session: str | None = None
) -> AsyncIterator[tuple[TemporalRuns, str, str]]:
    """A worker whose agent deploys to `envs`, and a run of it waiting on its first
    question: the runs, the run's id and the task queue."""
    agent = build(*envs)
    async with agent_worker(client, agent, task_queue := queue()):
        runs = TemporalRuns(agent, client, task_queue)
        run_id = await runs.start("go", session=session)
        await waiting(runs, run_id)
        yield runs, run_id, task_queue


async def listed(http: httpx2.AsyncClient, headers: dict[str, str], count: int) -> list[Any]:
    """The inbox once it lists `count` questions (visibility may lag a moment)."""
    for _ in range(200):
        items: list[Any] = (await http.get("/inbox", headers=headers)).json()["items"]
        if len(items) == count:
            return items
        await asyncio.sleep(0.05)
    raise AssertionError(f"the inbox never listed {count} questions: {items}")


async def test_the_inbox_lists_and_answers_the_questions_of_runs_on_temporal(
    client: Client, store: SQLiteStore
) -> None:
    _, viewer = await store_tokens.issue(store, "viewer", name="watcher")
    _, approver = await store_tokens.issue(store, "approver", name="oncall")
    read, answer = bearer(viewer), bearer(approver)
    session = f"s-{uuid.uuid4().hex[:8]}"
    async with asking(client, "prod", "prod", session=session) as (runs, run_id, task_queue):
        app = create_app(store, temporal=client, task_queue=task_queue)
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://t.test") as http:
            assert (await http.get("/inbox")).status_code == 401
            [item] = await listed(http, read, 1)
            assert (item["id"], item["run_id"]) == (f"{run_id}:q1", run_id)
            assert (item["tool"], item["args"], item["question"]) == (
                "deploy",
                {"env": "prod"},
                "Deploy?",
            )
            assert item["session"]["name"] == session and item["fingerprint"]
            one = await http.get(f"/questions/{item['id']}", headers=read)
            assert one.json() == item
            [row] = [
                s
                for s in (await http.get("/sessions", headers=read)).json()["items"]
                if s["name"] == session
            ]
            assert (row["status"], row["head_run_id"]) == ("waiting", run_id)
            detail = (await http.get(f"/sessions/{session}", headers=read)).json()
            assert [r["id"] for r in detail["runs"]] == [run_id]
            shown = (await http.get(f"/runs/{run_id}", headers=read)).json()
            assert shown["status"] == "waiting" and shown["questions"] == [item]

            url = f"/questions/{item['id']}/answer"
            stale = await http.post(
                url, json={"decision": "approve", "fingerprint": "another"}, headers=answer
            )
            assert stale.status_code == 409, stale.text
            assert "fingerprint" in stale.json()["detail"]
            refused = await http.post(url, json={"decision": "approve"}, headers=read)
            assert refused.status_code == 403
            body = {"decision": "approve", "scope": "run", "fingerprint": item["fingerprint"]}
            done = await http.post(url, json=body, headers=answer)
            assert done.status_code == 200, done.text
            assert done.json()["question"]["answer"]["by"] == "api:oncall"
            again = await http.post(url, json={"decision": "deny"}, headers=answer)
            assert again.status_code == 409, again.text

            result = await runs.result(run_id)
            assert result.status == "completed" and len(result.tool_calls) == 2
            assert any("api:oncall via question q1" in str(d) for d in result.decisions)
            ended = (await http.get(f"/runs/{run_id}", headers=read)).json()
            assert (ended["status"], ended["output"], ended["questions"]) == ("completed", "ok", [])
            calls = (await http.get(f"/runs/{run_id}/tool-calls", headers=read)).json()
            assert [c["name"] for c in calls["items"]] == ["deploy", "deploy"]
            messages = (await http.get(f"/runs/{run_id}/messages", headers=read)).json()
            assert messages["items"][0]["content"] == "go"
            assert (await http.get("/runs/nope", headers=read)).status_code == 404
            assert (await http.get("/questions/nope:q1", headers=read)).status_code == 404
            child = await http.get("/questions/parent/c1:q1", headers=read)  # a subagent's
            assert "no question 'parent/c1:q1'" in child.json()["detail"]
            unknown = await http.post("/questions/nope:q1/answer", json=body, headers=answer)
            assert unknown.status_code == 404, unknown.text

            for method, path in [
                ("POST", f"/runs/{run_id}/resume"),
                ("POST", f"/runs/{run_id}/replay"),
                ("POST", f"/sessions/{session}/fork"),
                ("GET", f"/runs/{run_id}/events"),
            ]:
                offered = await http.request(method, path, headers=answer)
                assert offered.status_code == 501, (path, offered.text)
                assert "not offered for runs on Temporal" in offered.json()["detail"]


async def test_an_approval_of_scope_session_from_the_inbox_covers_the_same_call_again(
    client: Client, store: SQLiteStore
) -> None:
    _, approver = await store_tokens.issue(store, "approver", name="oncall")
    session = f"s-{uuid.uuid4().hex[:8]}"
    # the run deploys twice: the approval of its one question covers the second call
    async with asking(client, "prod", "prod", session=session) as (runs, first, _):
        app = create_app(store, temporal=client)
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://t.test") as http:
            body = {"decision": "approve", "scope": "session"}
            done = await http.post(
                f"/questions/{first}:q1/answer", json=body, headers=bearer(approver)
            )
            assert done.status_code == 200, done.text
        result = await runs.result(first)
    assert result.status == "completed" and len(result.tool_calls) == 2
    assert any("api:oncall via approval (scope session)" in str(d) for d in result.decisions)


async def test_serve_temporal_serves_the_runs_of_a_temporal_server_with_the_stores_tokens(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    approver = tokens(tmp_path, "create", "--role", "approver", "--name", "oncall")["token"]
    async with asking(client, "prod") as (runs, run_id, task_queue):
        options = ("--temporal", temporal_address, "--task-queue", task_queue)
        server, url = await asyncio.to_thread(serve, tmp_path, *options)
        try:
            async with httpx2.AsyncClient(base_url=url, timeout=10) as http:
                assert (await http.get("/inbox")).status_code == 401
                [item] = await listed(http, bearer(approver), 1)
                done = await http.post(
                    f"/questions/{item['id']}/answer",
                    json={"decision": "deny", "reason": "not today"},
                    headers=bearer(approver),
                )
                assert done.status_code == 200, done.text
                assert done.json()["resume"] == "the run goes on by itself on its Temporal workers"
            result = await runs.result(run_id)
        finally:
            server.send_signal(signal.SIGINT)
            _, stderr = await asyncio.to_thread(server.communicate, timeout=30)
    assert server.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert result.status == "completed" and "not today" in json.dumps(
        [str(d) for d in result.decisions]
    )


def test_serve_refuses_temporal_options_without_temporal_and_an_unreachable_server(
    tmp_path: Path,
) -> None:
    tokens(tmp_path, "create", "--role", "viewer")
    alone = hookagent(tmp_path, "serve", "--port", "0", "--task-queue", "q")
    assert alone.returncode == 2 and "--task-queue is for runs on Temporal" in alone.stderr
    told = hookagent(
        tmp_path, "serve", "--temporal", "127.0.0.1:1", "--notify", "http://127.0.0.1:9/h"
    )
    assert told.returncode == 2 and "--notify is for the runs the server resumes" in told.stderr
    away = hookagent(tmp_path, "serve", "--port", "0", "--temporal", "127.0.0.1:1")
    assert away.returncode == 2, away.stderr
    assert "127.0.0.1:1: cannot reach a Temporal server there" in away.stderr


async def test_the_inbox_page_answers_a_run_on_temporal(client: Client, store: SQLiteStore) -> None:
    _, approver = await store_tokens.issue(store, "approver", name="oncall")
    async with asking(client, "prod") as (runs, run_id, _):
        transport = httpx2.ASGITransport(app=create_app(store, temporal=client))
        async with httpx2.AsyncClient(transport=transport, base_url="http://t.test") as http:
            login = csrf_of((await http.get("/ui/login")).text)
            signed = await http.post("/ui/login", data={"token": approver, "csrf": login})
            assert signed.status_code == 303
            await listed(http, bearer(approver), 1)
            page = await http.get("/ui")
            assert f'data-question="{run_id}:q1"' in page.text and "Deploy?" in page.text
            assert (await http.get(f"/ui/runs/{run_id}")).status_code == 200
            fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', page.text)
            assert fingerprint is not None
            form = {
                "csrf": csrf_of(page.text),
                "decision": "approve",
                "scope": "once",
                "fingerprint": fingerprint.group(1),
            }
            done = await http.post(f"/ui/questions/{run_id}:q1/answer", data=form)
            assert done.status_code == 303 and done.headers["location"] == "/ui?done=approve"
            again = await http.post(f"/ui/questions/{run_id}:q1/answer", data=form)
            assert again.status_code == 409 and "wait" in again.text
        result = await runs.result(run_id)
    assert result.tool_calls[0].result.content.startswith("deployed to prod")
    assert any("web:oncall via question q1" in str(d) for d in result.decisions)


async def test_the_inbox_stream_shows_a_question_of_a_run_on_temporal_then_its_answer(
    client: Client, store: SQLiteStore
) -> None:
    _, approver = await store_tokens.issue(store, "approver", name="oncall")
    async with asking(client, "prod") as (runs, run_id, task_queue):
        app = create_app(store, temporal=client, task_queue=task_queue, poll=0.05)
        async with serving(app) as http:
            seen = []
            async for event in events(http, "/inbox/events", bearer(approver), until="answered"):
                seen.append(event["event"])
                if event["event"] == "asked":
                    assert event["data"]["id"] == f"{run_id}:q1"
                    await runs.answer(run_id, "q1", True, by="ops")
        await runs.result(run_id)
    assert seen == ["asked", "answered"]

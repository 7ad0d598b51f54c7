"""`hookagent serve --notify`: a run the server resumes posts the questions it asks from
there, as a run resumed by `hookagent resume --notify` or a `worker --notify` does."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2

from capabilities.webhook_server import webhook  # tests/ is on the path
from hookagent.capabilities.notify import Notify
from hookagent.server import create_app
from hookagent.store import _tokens as tokens
from hookagent.store._sqlite import SQLiteStore

from .conftest import bearer
from .test_control import PLUGIN, started

TWICE = [
    {"text": "Deploying.", "tool_calls": [{"name": "deploy", "args": {"env": "prod"}, "id": "c1"}]},
    {"text": "Again.", "tool_calls": [{"name": "deploy", "args": {"env": "prod"}, "id": "c2"}]},
    {"text": "Done with prod."},
]


async def test_a_run_the_server_resumes_posts_its_next_question(tmp_path: Path) -> None:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(TWICE))
    store = SQLiteStore(tmp_path / "sessions.db")
    await store.open()
    try:
        run_id = await started(store, tmp_path)
        approver = bearer((await tokens.issue(store, "approver", name="oncall"))[1])
        with webhook() as hook:
            notify = Notify(hook.url, inbox_url="http://inbox.example/ui")
            app = create_app(store, notify=notify)
            transport = httpx2.ASGITransport(app=app)
            async with httpx2.AsyncClient(transport=transport, base_url="http://t") as client:
                [first] = await store.questions(run_id)
                answered = await client.post(
                    f"/questions/{first.id}/answer", json={"decision": "approve"}, headers=approver
                )
                assert answered.status_code == 200, answered.text
                resumed = await client.post(f"/runs/{run_id}/resume", headers=approver)
                assert resumed.status_code == 202, resumed.text
                for task in list(app.state.tasks):
                    await task
            await notify.drain(10)  # the message has gone out (or failed for good)
            [second] = await store.questions(run_id)
            [body] = hook.bodies
            assert (body["call_id"], body["question_id"]) == ("c2", second.id)
            assert body["link"] == f"http://inbox.example/ui#q-{second.id}"
    finally:
        await store.close()

"""Resume, fork, submit and replay over the API, on a run that `hookagent run --session`
would have made (its options saved, a plugin whose hook asks before deploying to prod),
paused by the real kernel: each works as the CLI command does, refuses what the run's state
does not allow (409), what the caller's role does not (403), unknown ids (404), bad bodies
(422), and files outside the server's --files-root."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from cli.run_cli import hookagent
from hookagent.cli._worker_cmd import work
from hookagent.server import create_app
from hookagent.sessions._agent_spec import CLI_KEY, RunOptions, connected_agent, saved_options
from hookagent.store import _tokens as tokens
from hookagent.store._sqlite import SQLiteStore

from .conftest import bearer

PLUGIN = '''
from pathlib import Path

from hookagent import BEFORE_TOOL, HookResult

LOG = Path(__file__).with_name("deployed.txt")


def deploy(env: str) -> str:
    """Deploy the current build."""
    with LOG.open("a") as log:
        log.write(f"deployed {env}\\n")
    return f"deployed to {env}"


def ask_prod(event):
    return HookResult.ask("Deploy to prod?") if event.args.get("env") == "prod" else None


def configure(builder):
    builder.tools(deploy)
    builder.on(BEFORE_TOOL, ask_prod, match="deploy", name="ask_prod")
'''
FREEZE = """
from hookagent import BEFORE_TOOL, HookResult


def configure(builder):
    builder.on(BEFORE_TOOL, lambda e: HookResult.block("prod is frozen"), name="freeze")
"""
SCRIPT = [
    {"text": "Deploying.", "tool_calls": [{"name": "deploy", "args": {"env": "prod"}, "id": "c1"}]},
    {"text": "Done with prod."},
    {"text": "You asked me to ship it."},
]


@dataclass
class Kept:
    store: SQLiteStore
    project: Path
    files: Path
    run_id: str
    client: httpx2.AsyncClient
    viewer: dict[str, str]
    approver: dict[str, str]
    admin: dict[str, str]

    async def post(self, path: str, who: dict[str, str], body: Any = None) -> httpx2.Response:
        return await self.client.post(path, json=body, headers=who)

    async def approve(self) -> None:
        [question] = await self.store.questions(self.run_id)
        answered = await self.post(
            f"/questions/{question.id}/answer", self.approver, {"decision": "approve"}
        )
        assert answered.status_code == 200, answered.text

    async def status(self, run_id: str, until: str) -> dict[str, Any]:
        """The run once its status is `until` (or as it is after 30 s)."""
        deadline = time.monotonic() + 30
        while True:
            run = (await self.client.get(f"/runs/{run_id}", headers=self.viewer)).json()
            if run["status"] == until or time.monotonic() > deadline:
                return dict(run)
            await asyncio.sleep(0.05)


async def started(store: SQLiteStore, project: Path, session: str = "ops") -> str:
    """A run as `hookagent run PROMPT -m scripted:turns.json -p plugin.py --session` starts
    it: its options saved with it."""
    options = RunOptions(
        prompt="ship it",
        model=f"scripted:{project / 'turns.json'}",
        plugins=(str(project / "plugin.py"),),
        session=session,
        cwd=str(project),
    )
    async with connected_agent(options, store) as (agent, _):
        result = await agent.run(
            "ship it", session=session, metadata={CLI_KEY: saved_options(options)}
        )
    return result.run_id


@pytest.fixture
async def kept(tmp_path: Path) -> AsyncIterator[Kept]:
    project, files = tmp_path / "project", tmp_path / "files"
    project.mkdir()
    files.mkdir()
    (project / "plugin.py").write_text(PLUGIN)
    (project / "turns.json").write_text(json.dumps(SCRIPT))
    (files / "freeze.py").write_text(FREEZE)
    store = SQLiteStore(tmp_path / "sessions.db")
    await store.open()
    run_id = await started(store, project)
    assert (await store.run(run_id)).status == "waiting"  # type: ignore[union-attr]
    secrets = {role: (await tokens.issue(store, role, name=role))[1] for role in tokens.ROLES}
    app = create_app(store, files_root=files)
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://hookagent.test") as client:
        yield Kept(
            store,
            project,
            files,
            run_id,
            client,
            bearer(secrets["viewer"]),
            bearer(secrets["approver"]),
            bearer(secrets["admin"]),
        )
        for task in list(app.state.tasks):
            await task
    await store.close()


def detail(response: httpx2.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    return str(response.json()["detail"])


async def test_an_answered_run_resumes_in_the_server_and_completes(kept: Kept) -> None:
    resume = f"/runs/{kept.run_id}/resume"
    assert "waiting for an answer" in detail(await kept.post(resume, kept.approver), 409)
    assert "needs an approver" in detail(await kept.post(resume, kept.viewer), 403)
    assert detail(await kept.client.post(resume), 401)
    await kept.approve()

    accepted = await kept.post(resume, kept.approver)
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["events"] == f"/runs/{kept.run_id}/events"
    done = await kept.status(kept.run_id, "completed")
    assert done["status"] == "completed" and done["output"] == "Done with prod."
    assert (kept.project / "deployed.txt").read_text() == "deployed prod\n"

    assert "has ended (completed)" in detail(await kept.post(resume, kept.approver), 409)
    assert "no run 'nope'" in detail(await kept.post("/runs/nope/resume", kept.approver), 404)


async def test_a_run_held_by_another_lease_or_without_saved_options_is_not_resumed(
    kept: Kept,
) -> None:
    await kept.approve()
    held = await kept.store.claim_run(kept.run_id, "elsewhere:1:abcdef", time.time(), 60)
    assert held is not None
    refused = detail(await kept.post(f"/runs/{kept.run_id}/resume", kept.approver), 409)
    assert "is being run by elsewhere:1:abcdef" in refused
    assert (await kept.store.run(kept.run_id)).status == "waiting"  # type: ignore[union-attr]

    bare = await kept.store.run(kept.run_id)
    assert bare is not None
    bare.id, bare.scalars = "bare", json.dumps({"metadata": {}})
    bare.lease_owner = None
    await kept.store.create_run(bare)
    assert "saved no options" in detail(await kept.post("/runs/bare/resume", kept.admin), 409)


async def test_a_finished_session_is_forked(kept: Kept) -> None:
    fork = "/sessions/ops/fork"
    assert "not finished" in detail(await kept.post(fork, kept.approver), 409)
    await kept.approve()
    await kept.post(f"/runs/{kept.run_id}/resume", kept.approver)
    await kept.status(kept.run_id, "completed")

    assert detail(await kept.post(fork, kept.viewer, {"name": "ops-2"}), 403)
    made = await kept.post(fork, kept.approver, {"name": "ops-2"})
    assert made.status_code == 201, made.text
    session = made.json()["session"]
    assert session["name"] == "ops-2" and session["forked_from"] is not None
    messages = await kept.client.get(
        f"/runs/{session['head_run_id']}/messages", headers=kept.viewer
    )
    assert [m["content"] for m in messages.json()["items"]][-1] == "Done with prod."

    assert "exists already" in detail(await kept.post(fork, kept.approver, {"name": "ops-2"}), 409)
    assert "no session 'nope'" in detail(await kept.post("/sessions/nope/fork", kept.approver), 404)
    bad = detail(await kept.post(fork, kept.approver, {"name": "x", "extra": 1}), 422)
    assert "body.extra" in bad
    unnamed = await kept.post(fork, kept.approver)
    assert unnamed.status_code == 201 and unnamed.json()["session"]["name"] is None


async def test_an_admin_queues_a_run_that_a_worker_completes(kept: Kept, tmp_path: Path) -> None:
    runs = "/sessions/ops/runs"
    ask = {"prompt": "what did I ask?"}
    assert "not finished" in detail(await kept.post(runs, kept.admin, ask), 409)
    await kept.approve()
    await kept.post(f"/runs/{kept.run_id}/resume", kept.approver)
    await kept.status(kept.run_id, "completed")

    assert "needs an admin" in detail(await kept.post(runs, kept.approver, ask), 403)
    assert detail(await kept.post(runs, kept.viewer, ask), 403)
    assert "body.prompt" in detail(await kept.post(runs, kept.admin, {"prompt": ""}), 422)
    assert "no session 'nope'" in detail(
        await kept.post("/sessions/nope/runs", kept.admin, ask), 404
    )
    queued = await kept.post(runs, kept.admin, ask)
    assert queued.status_code == 201, queued.text
    run = queued.json()["run"]
    assert run["status"] == "queued" and run["prompt"] == "what did I ask?"
    assert queued.json()["session"]["head_run_id"] == run["id"]
    assert "not finished" in detail(await kept.post(runs, kept.admin, ask), 409)

    other = SQLiteStore(tmp_path / "sessions.db")  # a worker process of its own
    await work(other, poll=0.05, once=True, max_runs=None, log=lambda *_, **__: None)
    done = await kept.status(run["id"], "completed")
    assert done["output"] == "You asked me to ship it."


async def test_a_replay_reports_the_decisions_other_hooks_change(kept: Kept) -> None:
    replay = f"/runs/{kept.run_id}/replay"
    await kept.approve()
    await kept.post(f"/runs/{kept.run_id}/resume", kept.approver)
    await kept.status(kept.run_id, "completed")

    same = await kept.post(replay, kept.approver)
    assert same.status_code == 200, same.text
    assert same.json()["changed"] == 0 and same.json()["decisions_before"] > 0
    frozen = await kept.post(replay, kept.approver, {"plugins": ["freeze.py"]})
    assert frozen.status_code == 200, frozen.text
    report = frozen.json()
    assert report["changed"] >= 1
    assert any(c["after"] == "block by user:freeze" for c in report["changes"])
    assert (kept.project / "deployed.txt").read_text() == "deployed prod\n"  # no tool ran

    assert detail(await kept.post(replay, kept.viewer), 403)
    assert "no run 'nope'" in detail(await kept.post("/runs/nope/replay", kept.approver), 404)


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"plugins": ["../project/plugin.py"]}, 403, "outside the server's --files-root"),
        ({"plugins": ["/etc/passwd.py"]}, 422, "relative to the server's --files-root"),
        ({"plugins": ["os"]}, 422, "must be a .py file"),
        ({"plugins": ["missing.py"]}, 404, "no such file"),
        ({"settings": ["broken.json"]}, 422, "do not load"),
        ({"settings": ["a"] * 21}, 422, "body.settings"),
        ({"plugins": "freeze.py"}, 422, "body.plugins"),
    ],
)
async def test_a_replay_reads_only_good_files_under_the_files_root(
    kept: Kept, body: dict[str, Any], status: int, says: str
) -> None:
    (kept.files / "broken.json").write_text("{not json")
    refused = await kept.post(f"/runs/{kept.run_id}/replay", kept.approver, body)
    assert says in detail(refused, status)


async def test_a_symlink_out_of_the_files_root_and_a_server_without_one_are_refused(
    kept: Kept,
) -> None:
    (kept.files / "escape.py").symlink_to(kept.project / "plugin.py")
    escaped = await kept.post(
        f"/runs/{kept.run_id}/replay", kept.approver, {"plugins": ["escape.py"]}
    )
    assert "outside" in detail(escaped, 403)

    transport = httpx2.ASGITransport(app=create_app(kept.store))
    async with httpx2.AsyncClient(transport=transport, base_url="http://t") as bare:
        refused = await bare.post(
            f"/runs/{kept.run_id}/replay", json={"plugins": ["freeze.py"]}, headers=kept.approver
        )
    assert "reads no files" in detail(refused, 403)


async def test_the_schema_types_every_new_endpoint(kept: Kept) -> None:
    schema = (await kept.client.get("/openapi.json")).json()
    expected = {
        "/runs/{run_id}/resume": ("202", "Resumed"),
        "/sessions/{key}/fork": ("201", "Forked"),
        "/sessions/{key}/runs": ("201", "Submitted"),
        "/runs/{run_id}/replay": ("200", "ReplayOut"),
        "/audit/verify": ("200", "VerifyOut"),
    }
    for path, (status, model) in expected.items():
        responses = schema["paths"][path]["post"]["responses"]
        ref = responses[status]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith(f"/{model}"), (path, ref)
        assert "problem+json" in str(responses["409" if path != "/audit/verify" else "403"])


def test_serve_refuses_a_files_root_that_is_not_a_directory(tmp_path: Path) -> None:
    done = hookagent(tmp_path, "serve", "--port", "0", "--files-root", "nope")
    assert done.returncode == 2 and "--files-root nope: no such directory" in done.stderr

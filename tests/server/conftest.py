"""A SQLite store holding a run paused on a question, made by the real kernel (a scripted
model, an `ask` hook, an audit trail), the API over it, and a token of each role."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

import hookagent as h
from hookagent.capabilities.audit._capability import AuditTrail
from hookagent.server import create_app
from hookagent.store import _tokens as tokens
from hookagent.store._sqlite import SQLiteStore
from hookagent.testing import ScriptedModel, reply, turn

from . import browser_setup

SECRET_METADATA = {"api_key": "sk-do-not-show-me"}


@h.tool
def deploy(env: str) -> str:
    """Deploy to an environment."""
    return f"deployed to {env}"


def ask(event: h.ToolCallEvent) -> h.HookResult | None:
    return h.HookResult.ask("Deploy to prod?") if event.args["env"] == "prod" else None


def agent(store: SQLiteStore, audit: Path, *turns: object) -> h.Agent:
    """The agent of the paused run, as a worker would rebuild it to resume."""
    return (
        h.AgentBuilder()
        .model(ScriptedModel(list(turns)))
        .tools(deploy)
        .store(store)
        .on(h.BEFORE_TOOL, ask, name="ask_prod")
        .with_(AuditTrail(audit))
        .build()
    )


@dataclass
class World:
    store: SQLiteStore
    audit: Path
    run_id: str
    client: httpx2.AsyncClient
    viewer: dict[str, str]
    approver: dict[str, str]
    admin: dict[str, str]

    async def resume(self) -> h.RunResult:
        return await agent(self.store, self.audit, reply("Deployed.")).resume(self.run_id)


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    store = SQLiteStore(tmp_path / "sessions.db")
    await store.open()
    audit = tmp_path / "audit.jsonl"
    for name in ("alpha", "beta"):
        await agent(store, audit, reply("hi")).run(f"say hi {name}", session=name)
    paused = await agent(
        store, audit, turn("Deploying.", {"name": "deploy", "args": {"env": "prod"}, "id": "c1"})
    ).run("ship it to prod", session="ops", metadata=SECRET_METADATA)
    assert paused.status == "waiting"
    secrets = {}
    for role in tokens.ROLES:
        _, secrets[role] = await tokens.issue(store, role, name=f"{role}-alice")
    transport = httpx2.ASGITransport(app=create_app(store, max_body=2048))
    async with httpx2.AsyncClient(transport=transport, base_url="http://hookagent.test") as client:
        yield World(
            store,
            audit,
            paused.run_id,
            client,
            bearer(secrets["viewer"]),
            bearer(secrets["approver"]),
            bearer(secrets["admin"]),
        )
    await store.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    terminalreporter.write_line(f"Browser tests: {browser_setup.describe()}")

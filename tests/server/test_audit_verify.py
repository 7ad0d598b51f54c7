"""`POST /audit/verify`: an audit trail the real kernel wrote, under the server's
--files-root, checked as `hookagent audit verify` checks it (intact, edited, cut short
against a head); a viewer may; no file outside the root is read, nor any without one."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

import hookagent as h
from hookagent.capabilities.audit._capability import AuditTrail
from hookagent.capabilities.audit._verify import verify
from hookagent.server import create_app
from hookagent.store import _tokens as tokens
from hookagent.store._memory import MemoryStore
from hookagent.testing import ScriptedModel, reply

from .conftest import bearer


@dataclass
class Audited:
    files: Path
    client: httpx2.AsyncClient
    viewer: dict[str, str]

    async def verify(self, body: Any, who: dict[str, str] | None = None) -> httpx2.Response:
        headers = self.viewer if who is None else who
        return await self.client.post("/audit/verify", json=body, headers=headers)


@pytest.fixture
async def audited(tmp_path: Path) -> AsyncIterator[Audited]:
    files = tmp_path / "files"
    files.mkdir()
    trail = files / "trails" / "audit.jsonl"
    trail.parent.mkdir()
    for text in ("one", "two"):
        agent = h.AgentBuilder().model(ScriptedModel([reply(text)])).with_(AuditTrail(trail))
        assert (await agent.build().run(f"say {text}")).status == "completed"
    (tmp_path / "outside.jsonl").write_text(trail.read_text())
    store = MemoryStore()
    await store.open()
    _, secret = await tokens.issue(store, "viewer", name="carol")
    transport = httpx2.ASGITransport(app=create_app(store, files_root=files))
    async with httpx2.AsyncClient(transport=transport, base_url="http://hookagent.test") as client:
        yield Audited(files, client, bearer(secret))
    await store.close()


async def test_an_intact_trail_verifies_as_the_cli_reports_it(audited: Audited) -> None:
    path = audited.files / "trails" / "audit.jsonl"
    response = await audited.verify({"path": "trails/audit.jsonl"})
    assert response.status_code == 200, response.text
    expected = {**verify(path).to_dict(), "path": "trails/audit.jsonl"}
    assert response.json() == expected and expected["ok"] and expected["records"] > 2
    assert str(audited.files) not in response.text  # where the server keeps it stays there

    head = expected["head"]
    assert (await audited.verify({"path": "trails/audit.jsonl", "head": head})).json()["ok"]
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]))  # cut short: only the head notices
    cut = (await audited.verify({"path": "trails/audit.jsonl", "head": head})).json()
    assert not cut["ok"] and "head" in cut["problem"]


async def test_an_edited_trail_names_its_first_bad_line(audited: Audited) -> None:
    path = audited.files / "trails" / "audit.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    record = json.loads(lines[1])
    record["point"] = "edited"
    lines[1] = json.dumps(record) + "\n"
    path.write_text("".join(lines))
    report = (await audited.verify({"path": "trails/audit.jsonl"})).json()
    assert (report["ok"], report["first_bad_line"], report["records"]) == (False, 2, 1)
    assert report["problem"].startswith("line 2:")


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"path": "../outside.jsonl"}, 403, "outside the server's --files-root"),
        ({"path": "/etc/passwd"}, 422, "relative to the server's --files-root"),
        ({"path": "trails"}, 404, "no such file"),
        ({"path": "missing.jsonl"}, 404, "no such file"),
        ({"path": "a\u0000b"}, 422, "relative to the server's --files-root"),
        ({"file": "audit.jsonl"}, 422, "body.path"),
    ],
)
async def test_only_files_under_the_root_are_read(
    audited: Audited, body: dict[str, Any], status: int, says: str
) -> None:
    response = await audited.verify(body)
    assert response.status_code == status, response.text
    assert says in response.json()["detail"]


async def test_a_link_out_of_the_root_a_missing_token_and_no_root_are_refused(
    audited: Audited, tmp_path: Path
) -> None:
    (audited.files / "link.jsonl").symlink_to(tmp_path / "outside.jsonl")
    linked = await audited.verify({"path": "link.jsonl"})
    assert linked.status_code == 403 and "outside" in linked.json()["detail"]
    anonymous = await audited.client.post("/audit/verify", json={"path": "trails/audit.jsonl"})
    assert anonymous.status_code == 401

    store = MemoryStore()
    await store.open()
    _, secret = await tokens.issue(store, "admin", name="root")
    transport = httpx2.ASGITransport(app=create_app(store))
    async with httpx2.AsyncClient(transport=transport, base_url="http://t") as client:
        refused = await client.post(
            "/audit/verify", json={"path": "trails/audit.jsonl"}, headers=bearer(secret)
        )
    assert refused.status_code == 403 and "reads no files" in refused.json()["detail"]

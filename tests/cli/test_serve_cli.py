"""`hookagent serve` and `hookagent tokens`, run for real as subprocesses: tokens are made
(shown once), listed and revoked; the server starts on a free loopback port, answers with a
token, takes an approval that a worker then acts on, and stops on Ctrl-C; an address others
reach is refused while the store has no live token."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from .run_cli import hookagent
from .test_sessions_cli import PLUGIN, SCRIPT, deployed, start


def tokens(cwd: Path, *args: str) -> Any:
    done = hookagent(cwd, "tokens", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_tokens_are_created_once_listed_without_secrets_and_revoked(tmp_path: Path) -> None:
    made = tokens(tmp_path, "create", "--role", "approver", "--name", "alice")
    assert made["token"].startswith("hka_") and (made["name"], made["role"]) == (
        "alice",
        "approver",
    )
    listed = tokens(tmp_path, "ls")
    assert [(t["id"], t["revoked_at"]) for t in listed] == [(made["id"], None)]
    assert made["token"] not in json.dumps(listed) and "digest" not in listed[0]
    stored = (tmp_path / ".hookagent" / "sessions.db").read_bytes()
    assert made["token"].encode() not in stored  # only its SHA-256 is kept

    text = hookagent(tmp_path, "tokens", "ls")
    assert "alice" in text.stdout and "approver" in text.stdout
    assert tokens(tmp_path, "revoke", made["id"])["revoked_at"] is not None
    again = hookagent(tmp_path, "tokens", "revoke", made["id"])
    assert again.returncode == 2 and "revoked already" in again.stderr


def test_tokens_refuse_a_bad_role_an_empty_name_and_an_unknown_id(tmp_path: Path) -> None:
    bad = hookagent(tmp_path, "tokens", "create", "--role", "root")
    assert bad.returncode == 2 and "--role is viewer, approver or admin, not 'root'" in bad.stderr
    empty = hookagent(tmp_path, "tokens", "create", "--role", "viewer", "--name", " ")
    assert empty.returncode == 2 and "--name is empty" in empty.stderr
    assert hookagent(tmp_path, "tokens", "ls").stdout.startswith("no tokens")
    tokens(tmp_path, "create", "--role", "viewer")
    unknown = hookagent(tmp_path, "tokens", "revoke", "nope")
    assert unknown.returncode == 2 and "no token 'nope'" in unknown.stderr


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1", "example.com"])
def test_serve_refuses_an_address_others_reach_without_a_live_token(
    tmp_path: Path, host: str
) -> None:
    made = tokens(tmp_path, "create", "--role", "admin")
    tokens(tmp_path, "revoke", made["id"])
    done = hookagent(tmp_path, "serve", "--host", host, "--port", "0")
    assert done.returncode == 2, done.stderr
    assert f"--host {host} is reachable from other machines" in done.stderr
    assert "hookagent tokens create" in done.stderr


def test_serve_refuses_a_store_that_does_not_exist(tmp_path: Path) -> None:
    done = hookagent(tmp_path, "serve", "--port", "0")
    assert done.returncode == 2 and "no store at" in done.stderr


def ready_line(server: subprocess.Popen[str], timeout: float = 30) -> Any:
    assert server.stdout is not None
    ready, _, _ = select.select([server.stdout], [], [], timeout)
    assert ready, "serve printed no ready line"
    return json.loads(server.stdout.readline())


def serve(cwd: Path, *options: str) -> tuple[subprocess.Popen[str], str]:
    """`hookagent serve` on a free loopback port, once it answers; and its URL."""
    server = subprocess.Popen(
        [sys.executable, "-m", "hookagent", "serve", "--port", "0", "--json", *options],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    url: str = ready_line(server)["url"]
    assert url.startswith("http://127.0.0.1:")
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx2.get(f"{url}/health", timeout=10).status_code == 200:
                return server, url
        except httpx2.TransportError:
            pass
        assert time.monotonic() < deadline, "the server never became ready"
        time.sleep(0.05)


def test_an_approval_over_http_lets_a_worker_complete_the_run(tmp_path: Path) -> None:
    """`run --session` pauses; `serve` on a free loopback port shows the question and takes
    the approval; after Ctrl-C (exit 0), `worker --once` completes the run."""
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    paused = start(tmp_path, "ops")
    approver = tokens(tmp_path, "create", "--role", "approver", "--name", "oncall")["token"]
    server, url = serve(tmp_path)
    try:
        with httpx2.Client(base_url=url, timeout=10) as client:
            assert client.get("/inbox").status_code == 401
            headers = {"Authorization": f"Bearer {approver}"}
            [item] = client.get("/inbox", headers=headers).json()["items"]
            assert item["session"]["name"] == "ops" and item["run_id"] == paused["run_id"]
            assert (item["tool"], item["args"]) == ("deploy", {"env": "prod"})
            answered = client.post(
                f"/questions/{item['id']}/answer", json={"decision": "approve"}, headers=headers
            )
            assert answered.status_code == 200, answered.text
            assert client.get("/inbox", headers=headers).json()["items"] == []
    finally:
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=30)
    assert server.returncode == 0, stderr
    assert "Traceback" not in stderr

    worked = hookagent(tmp_path, "worker", "--once")
    assert worked.returncode == 0, worked.stderr
    assert f"run {paused['run_id']} · session ops · completed" in worked.stdout
    assert deployed(tmp_path) == ["deployed prod"]
    shown = json.loads(hookagent(tmp_path, "sessions", "show", "ops", "--json").stdout)
    assert any("api:oncall" in (d["answer"] or "") for d in shown["decisions"])


def test_the_inbox_stream_shows_another_processs_question_and_ends_when_the_server_stops(
    tmp_path: Path,
) -> None:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "turns.json").write_text(json.dumps(SCRIPT))
    viewer = tokens(tmp_path, "create", "--role", "viewer")["token"]
    server, url = serve(tmp_path)
    lines = []
    try:
        headers = {"Authorization": f"Bearer {viewer}"}
        with (
            httpx2.Client(base_url=url, timeout=30) as client,
            client.stream("GET", "/inbox/events", headers=headers) as stream,
        ):
            assert stream.headers["content-type"].startswith("text/event-stream")
            paused = start(tmp_path, "ops")  # another process pauses a run meanwhile
            read = stream.iter_lines()
            for line in read:
                lines.append(line)
                if line.startswith("data:"):
                    break
            server.send_signal(signal.SIGINT)
            lines.extend(read)  # the server ends the stream as it stops
    finally:
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=30)
    assert "event: asked" in lines
    [data] = [line for line in lines if line.startswith("data:")]
    asked = json.loads(data.removeprefix("data:"))
    assert asked["run_id"] == paused["run_id"] and asked["tool"] == "deploy"
    assert server.returncode == 0, stderr
    assert "Traceback" not in stderr and "ERROR" not in stderr

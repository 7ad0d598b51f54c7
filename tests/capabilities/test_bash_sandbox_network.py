"""The sandbox's domain allowlist: a command reaches listed hosts through the call's proxy and
nothing else, and every connection the proxy refuses is a decision of the run.

No real network: a loopback HTTP server started here stands for every host, and the proxy's
resolver maps `allowed.test`, `denied.test` and `*.wild.test` to it."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.audit import AuditTrail
from hookagent.capabilities.bash import Bash, BashPolicy
from hookagent.capabilities.bash._refusals import METADATA_KEY
from hookagent.cli._render import decision_line, is_shown
from hookagent.testing import ScriptedModel, reply, tool_call

FAST = BashPolicy(kill_grace_s=0.2)
PY = os.path.realpath(sys.executable)
"""The interpreter itself: a venv's link under /tmp is hidden by the sandbox's private /tmp."""


class Web:
    """A loopback HTTP server; every request's Host header and path is listed."""

    def __init__(self) -> None:
        seen: list[str] = []
        self.seen = seen

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append(f"{self.headers['Host']}{self.path}")
                body = f"hello {self.headers['Host']}{self.path}\n".encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]


@pytest.fixture
def web(bwrap: str) -> Iterator[Web]:
    made = Web()
    thread = threading.Thread(target=made.server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield made
    made.server.shutdown()
    made.server.server_close()
    thread.join()


async def pinned(host: str, port: int) -> list[str]:
    """Every name resolves to the test's server."""
    return ["127.0.0.1"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    made = tmp_path / "root"
    made.mkdir()
    return made


def sandboxed(root: Path, network: Sequence[str] | str) -> Bash:
    bash = Bash(root, FAST, sandbox="required", network=network)
    bash.sandbox.resolver = pinned
    return bash


async def run(bash: Bash, command: str, *hooks: Any) -> h.RunResult:
    model = ScriptedModel([tool_call("Bash", "c1", command=command), reply("ok")])
    builder = h.AgentBuilder().model(model).with_(bash)
    for hook in hooks:
        builder = builder.on(h.BEFORE_TOOL, hook)
    result = await builder.build().run("go")
    model.assert_consumed()
    return result


def refusals(result: h.RunResult) -> list[Any]:
    return [d for d in result.decisions if d.hook == "bash:network_refusals"]


async def test_an_allowed_host_is_reached_with_curl(root: Path, web: Web) -> None:
    result = await run(
        sandboxed(root, ["allowed.test"]), f"curl -sS http://allowed.test:{web.port}/x"
    )
    call = result.tool_calls[0].result
    assert call.content == f"hello allowed.test:{web.port}/x", call.content
    assert call.data["sandbox"]["allowed"] == [
        {"host": "allowed.test", "port": web.port, "method": "GET"}
    ]
    assert call.data["sandbox"]["refused"] == []
    assert refusals(result) == []


async def test_python_urllib_and_a_connect_tunnel_reach_allowed_hosts(root: Path, web: Web) -> None:
    """urllib reads the proxy variables; curl -p tunnels through CONNECT, as https does."""
    fetch = (
        f"import urllib.request as u; print(u.urlopen('http://api.wild.test:{web.port}/u').read())"
    )
    command = f'{PY} -c "{fetch}" && curl -sS -p http://allowed.test:{web.port}/t'
    result = await run(sandboxed(root, ["allowed.test", "*.wild.test"]), command)
    call = result.tool_calls[0].result
    assert not call.is_error, call.content
    assert web.seen == [f"api.wild.test:{web.port}/u", f"allowed.test:{web.port}/t"]
    methods = [(c["host"], c["method"]) for c in call.data["sandbox"]["allowed"]]
    assert methods == [("api.wild.test", "GET"), ("allowed.test", "CONNECT")]


async def test_a_denied_host_is_refused_and_recorded_as_a_decision(
    root: Path, web: Web, tmp_path: Path
) -> None:
    trail = tmp_path / "audit.jsonl"
    model = ScriptedModel(
        [
            tool_call("Bash", "c1", command=f"curl -sS http://denied.test:{web.port}/secret"),
            tool_call(
                "Bash", "c2", command=f"curl -sS -p http://127.0.0.1:{web.port}/ --noproxy ''"
            ),
            reply("ok"),
        ]
    )
    bash = sandboxed(root, ["allowed.test"])
    agent = h.AgentBuilder().model(model).with_(bash).with_(AuditTrail(trail)).build()
    result = await agent.run("go")
    first, second = (call.result for call in result.tool_calls)
    why = "not in the allowed domains (allowed.test)"
    assert f"hookagent sandbox: denied.test:{web.port} refused: {why}" in first.content
    assert first.data["sandbox"]["refused"] == [
        {
            "host": "denied.test",
            "port": web.port,
            "reason": "not in the allowed domains (allowed.test)",
        }
    ]
    assert second.is_error  # curl: CONNECT tunnel failed, response 403
    assert second.data["sandbox"]["refused"][0]["reason"].startswith("an IP address")
    assert web.seen == []
    decisions = refusals(result)
    assert [(d.point, d.call_id, d.outcome) for d in decisions] == [
        ("after_tool", "c1", "modify"),
        ("after_tool", "c2", "modify"),
    ]
    assert decisions[0].reason == (
        f"sandbox network proxy refused, for call c1: denied.test:{web.port} "
        "(not in the allowed domains (allowed.test))"
    )
    assert all(is_shown(d) for d in decisions)
    assert f"denied.test:{web.port}" in decision_line(decisions[0]).plain
    assert "The sandbox's network proxy refused" in first.content  # the model is told
    hosts = [(e["call_id"], e["host"]) for e in result.state.metadata[METADATA_KEY]]
    assert hosts == [("c1", "denied.test"), ("c2", "127.0.0.1")]
    audited = [json.loads(line) for line in trail.read_text().splitlines()]
    assert any(r["type"] == "decision" and f"denied.test:{web.port}" in str(r) for r in audited)


async def test_a_port_limited_pattern_refuses_other_ports(root: Path, web: Web) -> None:
    result = await run(
        sandboxed(root, ["allowed.test:1"]), f"curl -sS http://allowed.test:{web.port}/"
    )
    refused = result.tool_calls[0].result.data["sandbox"]["refused"]
    assert refused[0]["reason"] == f"port {web.port} is not allowed for allowed.test"
    assert web.seen == []


async def test_direct_tcp_and_dns_bypassing_the_proxy_fail(root: Path, web: Web) -> None:
    """The sandbox has only its own loopback: the host's server and resolver are out of reach."""
    tcp = f"socket.create_connection(('127.0.0.1', {web.port}), 2)"
    dns = "socket.getaddrinfo('allowed.test', 80)"
    for code in (tcp, dns):
        result = await run(sandboxed(root, ["allowed.test"]), f'{PY} -c "import socket; {code}"')
        call = result.tool_calls[0].result
        assert call.is_error
        assert "ConnectionRefusedError" in call.content or "gaierror" in call.content, call.content
    assert web.seen == []


async def test_a_hook_narrows_the_list_and_cannot_widen_it(root: Path, web: Web) -> None:
    def narrow(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.modify(args={**event.args, "sandbox": {"network": ["allowed.test"]}})

    bash = sandboxed(root, ["allowed.test", "*.wild.test"])
    result = await run(bash, f"curl -sS http://api.wild.test:{web.port}/", narrow)
    call = result.tool_calls[0].result
    assert call.data["sandbox"]["network"] == ["allowed.test"]
    assert call.data["sandbox"]["refused"][0]["host"] == "api.wild.test"

    def widen(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.modify(args={**event.args, "sandbox": {"network": ["denied.test"]}})

    result = await run(
        sandboxed(root, ["allowed.test"]), f"curl -sS http://denied.test:{web.port}/", widen
    )
    call = result.tool_calls[0].result
    assert call.is_error
    assert call.content.startswith("Sandbox network domain 'denied.test' would widen the domains")
    assert web.seen == []


async def test_a_hook_may_put_an_allowed_network_behind_the_proxy(root: Path, web: Web) -> None:
    def behind(event: h.ToolCallEvent) -> h.HookResult:
        return h.HookResult.modify(args={**event.args, "sandbox": {"network": ["allowed.test"]}})

    command = f"curl -sS http://allowed.test:{web.port}/a; curl -sS http://denied.test:{web.port}/b"
    result = await run(sandboxed(root, "allow"), command, behind)
    assert web.seen == [f"allowed.test:{web.port}/a"]
    assert [d.call_id for d in refusals(result)] == ["c1"]


async def test_nothing_of_the_proxy_outlives_the_call(root: Path, web: Web) -> None:
    """A tunnel still open when the command is stopped is closed with the call."""
    hold = (
        "import socket, time; s = socket.create_connection(('127.0.0.1', 3128)); "
        f"s.sendall(b'CONNECT allowed.test:{web.port} HTTP/1.1\\r\\n\\r\\n'); s.recv(100); "
        "time.sleep(30)"
    )
    model = ScriptedModel(
        [tool_call("Bash", "c1", command=f'{PY} -c "{hold}"', timeout=1500), reply("ok")]
    )
    agent = h.AgentBuilder().model(model).with_(sandboxed(root, ["allowed.test"])).build()
    result = await agent.run("go")
    call = result.tool_calls[0].result
    assert call.data["interrupted"] is True
    assert call.data["sandbox"]["allowed"][0]["method"] == "CONNECT"
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_the_command_sees_the_proxy_and_keeps_its_exit_status(root: Path, web: Web) -> None:
    command = 'echo "$HTTPS_PROXY $http_proxy $ALL_PROXY $NO_PROXY"; exit 3'
    result = await run(sandboxed(root, ["allowed.test"]), command)
    call = result.tool_calls[0].result
    url = "http://127.0.0.1:3128"
    assert call.data["stdout"] == f"{url} {url} {url} localhost,127.0.0.1,::1\n"
    assert call.data["exit_code"] == 3
    killed = await run(sandboxed(root, ["allowed.test"]), "kill -9 $$")
    assert killed.tool_calls[0].result.data["exit_code"] == 137

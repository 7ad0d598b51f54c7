"""`http` handlers: the event is POSTed to a local server started here; its answer is read as a
command hook's stdout; non-2xx, unreachable servers, other bodies and timeouts are
non-blocking errors unless the handler (or the run) fails closed."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.claude._http_hook import run_http
from hookagent.claude._http_policy import url_allowed
from hookagent.claude._model import HandlerSpec, SettingsSource
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._output import read_verdict
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import settings


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


@dataclass
class Answer:
    status: int = 200
    body: str = ""
    delay: float = 0.0


@dataclass
class Server:
    url: str
    answers: dict[str, Answer]
    seen: list[tuple[str, dict[str, str], str]] = field(default_factory=list)

    def answer(self, path: str, body: Any = "", status: int = 200, delay: float = 0.0) -> str:
        text = body if isinstance(body, str) else json.dumps(body)
        self.answers[path] = Answer(status, text, delay)
        return self.url + path


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server(url="", answers={})

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # the name http.server calls
            body = self.rfile.read(int(self.headers["Content-Length"])).decode()
            state.seen.append((self.path, dict(self.headers.items()), body))
            answer = state.answers.get(self.path, Answer(404))
            time.sleep(answer.delay)
            data = answer.body.encode()
            try:
                self.send_response(answer.status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (timeout tests)
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


def http(url: str, **fields: Any) -> dict[str, Any]:
    return {"type": "http", "url": url, **fields}


async def run_bash(
    tmp_path: Path, handler: dict[str, Any], *, fail: str = "continue"
) -> h.RunResult[Any]:
    file = settings(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]})
    options = ClaudeHookOptions(project_dir=str(tmp_path), on_failure_default=fail)  # type: ignore[arg-type]
    agent = (
        h.AgentBuilder()
        .model(ScriptedModel([tool_call("Bash", command="ls"), reply("done")]))
        .tools(Bash)
        .with_settings(file, project_dir=tmp_path, options=options)
        .build()
    )
    return await agent.run("list")


def pre_tool(decision: str, reason: str | None = None, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": decision}
    if reason is not None:
        out["permissionDecisionReason"] = reason
    return {"hookSpecificOutput": {**out, **more}}


def no_error(result: h.RunResult[Any]) -> bool:
    return all(v.error is None for d in result.decisions.at(h.BEFORE_TOOL) for v in d.votes)


def only_vote(result: h.RunResult[Any]) -> h.Vote:
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    [vote] = decision.votes
    return vote


async def test_the_event_is_posted_as_json_and_an_allow_lets_the_call_run(
    tmp_path: Path, server: Server
) -> None:
    url = server.answer("/allow", pre_tool("allow"))
    result = await run_bash(tmp_path, http(url))
    assert result.tool_calls[0].result.content == "ran: ls"
    [(path, headers, body)] = server.seen
    assert path == "/allow" and headers["Content-Type"] == "application/json"
    payload = json.loads(body)
    assert payload["hook_event_name"] == "PreToolUse"
    assert (payload["tool_name"], payload["tool_input"]) == ("Bash", {"command": "ls"})
    assert Path(payload["transcript_path"]).exists()  # written before the request
    assert no_error(result)


async def test_a_deny_blocks_with_its_reason(tmp_path: Path, server: Server) -> None:
    url = server.answer("/deny", pre_tool("deny", "no listing today"))
    result = await run_bash(tmp_path, http(url))
    [call] = result.tool_calls
    assert call.blocked and "no listing today" in call.result.content


async def test_additional_context_reaches_the_model(tmp_path: Path, server: Server) -> None:
    url = server.answer("/ctx", pre_tool("allow", additionalContext="the tree is clean"))
    result = await run_bash(tmp_path, http(url))
    assert "the tree is clean" in result.tool_calls[0].result.content


async def test_an_empty_2xx_body_is_success_with_no_output(tmp_path: Path, server: Server) -> None:
    url = server.answer("/empty", "", status=204)
    result = await run_bash(tmp_path, http(url))
    assert result.tool_calls[0].result.content == "ran: ls"
    assert no_error(result)


FAILURES = [
    pytest.param("/boom", {"status": 500, "body": "oops"}, {}, "answered 500", id="non-2xx"),
    pytest.param("/text", {"body": "looks fine"}, {}, "not a JSON object", id="plain-text"),
    pytest.param("/bad", {"body": "{not json"}, {}, "JSON", id="invalid-json"),
    pytest.param(
        "/slow",
        {"body": "{}", "delay": 3.0},
        {"timeout": 0.3},
        "timed out after 0.3 s",
        id="timeout",
    ),
]


@pytest.mark.parametrize(("path", "answer", "fields", "error"), FAILURES)
async def test_a_failing_http_hook_is_a_non_blocking_error(
    tmp_path: Path,
    server: Server,
    path: str,
    answer: dict[str, Any],
    fields: dict[str, Any],
    error: str,
) -> None:
    url = server.answer(path, **answer)
    result = await run_bash(tmp_path, http(url, **fields))
    assert result.tool_calls[0].result.content == "ran: ls"
    vote = only_vote(result)
    assert vote.error is not None and error in vote.error
    assert vote.error.startswith(f"{tmp_path / 'settings.json'}:hooks.PreToolUse[0].hooks[0]: ")


async def test_an_unreachable_server_is_a_non_blocking_error(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/hook"  # discard port: nothing listens on loopback
    result = await run_bash(tmp_path, http(url))
    assert result.tool_calls[0].result.content == "ran: ls"
    assert "request to http://127.0.0.1:9/hook failed" in (only_vote(result).error or "")


@pytest.mark.parametrize("where", ["handler", "run"])
async def test_failing_closed_blocks(tmp_path: Path, server: Server, where: str) -> None:
    url = server.answer("/boom", "oops", status=503)
    if where == "handler":
        result = await run_bash(tmp_path, http(url, onFailure="block"))
    else:
        result = await run_bash(tmp_path, http(url), fail="block")
    [call] = result.tool_calls
    assert call.blocked
    assert "answered 503" in (only_vote(result).error or "")


async def test_headers_expand_only_the_allowed_variables(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "t0k3n")
    monkeypatch.setenv("HOOK_SECRET", "s3cret")
    url = server.answer("/auth", pre_tool("allow"))
    headers = {"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${HOOK_SECRET}-x"}
    await run_bash(tmp_path, http(url, headers=headers, allowedEnvVars=["HOOK_TOKEN"]))
    await run_bash(tmp_path, http(url, headers=headers))
    [(_, listed, _), (_, unlisted, _)] = server.seen
    assert (listed["Authorization"], listed["X-Other"]) == ("Bearer t0k3n", "-x")
    assert (unlisted["Authorization"], unlisted["X-Other"]) == ("Bearer", "-x")


async def test_a_body_longer_than_the_cap_is_saved_and_not_read_as_json(
    tmp_path: Path, server: Server
) -> None:
    big = {"systemMessage": "x" * 5000}
    url = server.answer("/big", big)
    source = SettingsSource(path="settings.json", kind="project")
    spec = HandlerSpec(event="Stop", matcher=None, type="http", url=url, source=source, where="w")
    outcome = await run_http(spec, {}, timeout=10, output_cap=100, spill_dir=str(tmp_path))
    assert (outcome.exit_code, len(outcome.stdout), outcome.stdout_bytes) == (
        0,
        100,
        len(json.dumps(big)),
    )
    assert outcome.stdout_file is not None
    assert json.loads(Path(outcome.stdout_file).read_text()) == big
    verdict = read_verdict("Stop", outcome, spec)
    assert verdict.failed and "more than the 100 read as JSON" in (verdict.error or "")


def test_http_on_session_start_is_refused_as_claude_code_never_runs_it(tmp_path: Path) -> None:
    hooks = {"SessionStart": [{"hooks": [http("http://127.0.0.1:9/")]}]}
    file = settings(tmp_path, hooks)
    with pytest.raises(h.ConfigError, match='does not run "http" handlers on SessionStart'):
        h.AgentBuilder().with_settings(file, project_dir=tmp_path)


def test_an_http_handler_without_url_is_refused(tmp_path: Path) -> None:
    file = settings(tmp_path, {"Stop": [{"hooks": [{"type": "http"}]}]})
    with pytest.raises(h.ConfigError) as caught:
        h.AgentBuilder().with_settings(file, project_dir=tmp_path)
    assert caught.value.key == "hooks.Stop[0].hooks[0].url"


def test_hooks_test_runs_http_handlers(tmp_path: Path, server: Server) -> None:
    url = server.answer("/deny", pre_tool("deny", "not from the CLI either"))
    settings(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [http(url)]}]})
    payload = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    (tmp_path / "p.json").write_text(json.dumps(payload))
    args = ["--input", "p.json", "--settings", "settings.json", "--no-discover", "--json"]
    command = [sys.executable, "-m", "hookagent", "hooks", "test", "PreToolUse", *args]
    out = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert (report["decision"], report["reason"]) == ("deny", "not from the CLI either")
    assert report["hooks"][0]["command"] == f"POST {url}"


@pytest.mark.parametrize(
    ("url", "patterns", "allowed"),
    [
        ("https://hooks.example.com/a", ["https://hooks.example.com/*"], True),
        ("https://HOOKS.Example.com./a", ["https://hooks.example.com/*"], True),
        ("https://evil.com/a", ["https://hooks.example.com/*"], False),
        ("http://127.0.0.1:8080/x", ["http://127.0.0.1:*/*"], True),
        ("https://hooks.example.com/A", ["https://hooks.example.com/a"], False),
        ("https://hooks.example.com/a", [], False),
    ],
)
def test_url_patterns(url: str, patterns: list[str], allowed: bool) -> None:
    assert url_allowed(url, patterns) is allowed


async def test_allowed_http_hook_urls_stops_other_urls_and_env_vars_are_bounded(
    tmp_path: Path,
    server: Server,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "t0k3n")
    monkeypatch.setenv("HOOK_TEAM", "blue")
    denied = server.answer("/deny", pre_tool("deny", "no"))
    allowed = server.answer("/ok", pre_tool("allow"))
    headers = {"X-Token": "$HOOK_TOKEN", "X-Team": "$HOOK_TEAM"}
    hooks = {
        "PreToolUse": [
            {"hooks": [http(denied.replace("127.0.0.1", "localhost"))]},
            {"hooks": [http(allowed, headers=headers, allowedEnvVars=["HOOK_TOKEN", "HOOK_TEAM"])]},
        ]
    }
    file = settings(
        tmp_path,
        hooks,
        allowedHttpHookUrls=[f"{server.url}/*"],
        httpHookAllowedEnvVars=["HOOK_TOKEN"],
    )
    agent = (
        h.AgentBuilder()
        .model(ScriptedModel([tool_call("Bash", command="ls"), reply("done")]))
        .tools(Bash)
        .with_settings(file, project_dir=tmp_path)
        .build()
    )
    result = await agent.run("list")
    assert result.tool_calls[0].result.content == "ran: ls"  # the deny never ran
    [(path, headers_seen, _)] = server.seen
    assert path == "/ok" and headers_seen["X-Token"] == "t0k3n" and headers_seen["X-Team"] == ""
    assert any("matches no allowedHttpHookUrls pattern; not run" in m for m in caplog.messages)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"continue": False, "stopReason": "change freeze"}, "change freeze"),
        ({"decision": {"behavior": "deny", "message": "no", "interrupt": True}}, "no"),
    ],
    ids=["continue-false", "deny-interrupt"],
)
async def test_a_permission_request_answer_can_end_the_run(
    tmp_path: Path, server: Server, answer: dict[str, Any], message: str
) -> None:
    decision = answer.pop("decision", {"behavior": "deny"})
    specific = {"hookEventName": "PermissionRequest", "decision": decision}
    permit = server.answer("/permit", {"hookSpecificOutput": specific, **answer})
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [http(server.answer("/ask", pre_tool("ask")))]}
        ],
        "PermissionRequest": [{"hooks": [http(permit)]}],
    }
    model = ScriptedModel([tool_call("Bash", command="ls"), reply("unreached")])
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(Bash)
        .with_settings(settings(tmp_path, hooks), project_dir=tmp_path)
        .build()
    )
    result = await agent.run("list", approver=lambda q: pytest.fail("the hook answers"))
    assert (result.status, result.stop_reason) == ("stopped", "hook_stop")
    assert (result.stop_message or "").startswith(f"{message} (hook claude:PermissionRequest")
    assert result.tool_calls[0].blocked and model.remaining == 1

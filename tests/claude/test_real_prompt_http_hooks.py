"""Two published Claude Code hook sets with prompt and http handlers, loaded unchanged
(fixtures/REAL_HOOKS.md names each repository @ commit), behave as in Claude Code.

basic-memory (a plugin): a `prompt` PreToolUse handler judges every
`mcp__basic-memory__write_note` call, a `command` PostToolUse handler echoes a line, a `prompt`
Stop handler asks whether the conversation is worth remembering. Their model is the scripted
judge answering `{"ok": ...}`.

cc-island (a desktop app's hooks file): `http` handlers post every event to
`http://localhost:17527/hook`, the app's port, which the test serves (the file is unchanged,
so the port is too); the app answers PermissionRequest with its `decision` and
`continue`, as its server does (`build_permission_request_output`).
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.approvals import Approvals, Rule
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._sources import discover
from hookagent.models._base import ModelRequest
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call

FIXTURES = Path(__file__).parent / "fixtures"
BASIC_MEMORY = FIXTURES / "basic-memory"
CC_ISLAND = FIXTURES / "cc-island"
WRITE_NOTE = "mcp__basic-memory__write_note"


@h.tool(name=WRITE_NOTE)
def write_note(title: str, content: str) -> str:
    """Save a note (stands in for the Basic Memory MCP server's tool)."""
    return f"saved: {title}"


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


# -- basic-memory: prompt handlers ------------------------------------------------------
class Judge:
    """The prompt handlers' model: answers in turn, remembering what it was asked."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.asked: list[ModelRequest] = []

    def __call__(self, request: ModelRequest) -> str:
        self.asked.append(request)
        return json.dumps(self.answers.pop(0))


def basic_memory(tmp_path: Path, model: h.Model, judge: Judge) -> h.Agent:
    options = ClaudeHookOptions(
        project_dir=str(tmp_path), prompt_model=FunctionModel(judge, name="judge")
    )
    return (
        h.AgentBuilder()
        .model(model)
        .tools(write_note)
        .with_settings(project_dir=tmp_path, plugins=[BASIC_MEMORY], options=options)
        .build()
    )


def note_then(text: str) -> ScriptedModel:
    call = tool_call(WRITE_NOTE, title="Decision", content="# Decision\nuse SQLite")
    return ScriptedModel([call, reply(text)])


def test_the_plugin_loads_unchanged_with_its_prompt_handlers() -> None:
    loaded = discover(BASIC_MEMORY, plugin_dirs=[BASIC_MEMORY], include_standard=False)
    found = [(s.event, s.type, s.matcher) for s in loaded.handlers]
    assert found == [
        ("PreToolUse", "prompt", WRITE_NOTE),
        ("PostToolUse", "command", WRITE_NOTE),
        ("Stop", "prompt", None),
    ]


async def test_ok_true_lets_the_note_be_written_and_the_judge_sees_the_call(
    tmp_path: Path,
) -> None:
    judge = Judge({"ok": True, "reason": "well formed"}, {"ok": True, "reason": "trivial"})
    result = await basic_memory(tmp_path, note_then("saved"), judge).run("note it")
    assert result.status == "completed" and result.output == "saved"
    [call] = result.tool_calls
    assert call.result.content.startswith("saved: Decision") and not call.blocked
    pre_tool, stop = judge.asked
    question = pre_tool.messages[-1].content
    assert question.startswith("Before saving this note to Basic Memory, validate it")
    event = json.loads(question[question.index("{") :])  # the prompt names no $ARGUMENTS
    assert (event["hook_event_name"], event["tool_name"]) == ("PreToolUse", WRITE_NOTE)
    assert event["tool_input"]["content"] == "# Decision\nuse SQLite"
    assert "suggest using `/remember [title]`" in stop.messages[-1].content


async def test_ok_false_denies_the_write_and_ends_the_turn_with_the_reason(
    tmp_path: Path,
) -> None:
    judge = Judge({"ok": False, "reason": "the note has no frontmatter title"})
    result = await basic_memory(tmp_path, note_then("unused"), judge).run("note it")
    [call] = result.tool_calls
    assert call.blocked and "the note has no frontmatter title" in call.result.content
    assert result.status == "stopped"
    assert "the note has no frontmatter title" in (result.stop_message or "")


async def test_the_stop_judge_sends_the_model_back_with_its_reason(tmp_path: Path) -> None:
    seen: list[str] = []

    def agent(request: ModelRequest) -> Any:
        if len(request.messages) == 1:
            return reply("We chose SQLite over Postgres for the cache.")
        seen.append(str(request.messages[-1].content))
        return reply("Run /remember SQLite decision to keep it.")

    judge = Judge(
        {"ok": False, "reason": "A decision was made: suggest /remember"},
        {"ok": True, "reason": "suggested"},
    )
    result = await basic_memory(tmp_path, FunctionModel(agent), judge).run("which db?")
    assert result.status == "completed"
    assert result.output == "Run /remember SQLite decision to keep it."
    assert "A decision was made: suggest /remember" in seen[0]  # the reason reached the model
    first_stop = judge.asked[0]
    assert "We chose SQLite over Postgres" in str(first_stop.messages[0].content)  # evidence


# -- cc-island: http handlers ------------------------------------------------------------
class App:
    """What the test serves at the app's address: every event it was posted, and the answer
    its popup gives a PermissionRequest."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.permission = "allow"

    def answer(self, event: dict[str, Any]) -> dict[str, Any]:
        self.events.append(event)
        if event["hook_event_name"] != "PermissionRequest":
            return {}
        decision: dict[str, Any] = {"behavior": self.permission}
        if self.permission == "deny":
            decision["message"] = "权限被拒绝"
        specific = {"hookEventName": "PermissionRequest", "decision": decision}
        return {"continue": self.permission == "allow", "hookSpecificOutput": specific}


@pytest.fixture
def app() -> Iterator[App]:
    state = App()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # the name http.server calls
            length = int(self.headers.get("Content-Length") or 0)
            event = json.loads(self.rfile.read(length))
            body = json.dumps(state.answer(event)).encode()
            self.send_response(200 if self.path == "/hook" else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    try:
        server = ThreadingHTTPServer(("127.0.0.1", 17527), Handler)
    except OSError:
        pytest.skip("port 17527, which the unchanged hooks file names, is in use")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder holding the SessionStart script where the app installs it."""
    home = tmp_path / "home"
    (home / ".cc-island").mkdir(parents=True)
    script = home / ".cc-island" / "session-start.sh"
    shutil.copy(CC_ISLAND / "hooks" / "cc-island-session-start.sh", script)
    script.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    return home


def cc_island(tmp_path: Path, model: h.Model, *extra: Any) -> h.Agent:
    builder = h.AgentBuilder().model(model).tools(Bash)
    for capability in extra:
        builder = builder.with_(capability)
    return builder.with_settings(CC_ISLAND / "hooks" / "hooks.json", project_dir=tmp_path).build()


def asking(tmp_path: Path) -> Approvals:
    return Approvals([Rule("Bash", "ask")], project_dir=tmp_path, settings=False, save_to=None)


async def test_every_event_is_posted_to_the_app(tmp_path: Path, app: App, home: Path) -> None:
    model = ScriptedModel([tool_call("Bash", command="ls"), reply("done")])
    result = await cc_island(tmp_path, model).run("list")
    assert result.status == "completed" and result.output == "done"
    posted = [e["hook_event_name"] for e in app.events]
    http_events = [e for e in posted if e != "SessionStart"]
    assert http_events == ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    pre_tool = app.events[posted.index("PreToolUse")]
    assert pre_tool["tool_input"] == {"command": "ls"} and pre_tool["cwd"] == str(tmp_path)
    if shutil.which("curl"):  # the SessionStart script forwards its stdin with curl
        assert posted[0] == "SessionStart"


async def test_the_apps_allow_answers_the_permission_request(
    tmp_path: Path, app: App, home: Path
) -> None:
    model = ScriptedModel([tool_call("Bash", command="rm -rf build"), reply("cleaned")])
    agent = cc_island(tmp_path, model, asking(tmp_path))
    result = await agent.run("clean", approver=lambda q: pytest.fail("the app answers"))
    assert result.output == "cleaned"
    assert result.tool_calls[0].result.content == "ran: rm -rf build"
    assert "PermissionRequest" in [e["hook_event_name"] for e in app.events]


async def deny_run(tmp_path: Path, app: App) -> h.RunResult[Any]:
    app.permission = "deny"
    model = ScriptedModel([tool_call("Bash", command="rm -rf build"), reply("gave up")])
    agent = cc_island(tmp_path, model, asking(tmp_path))
    return await agent.run("clean", approver=lambda q: pytest.fail("the app answers"))


async def test_the_apps_deny_refuses_the_call(tmp_path: Path, app: App, home: Path) -> None:
    result = await deny_run(tmp_path, app)
    [call] = result.tool_calls
    assert call.blocked and "ran:" not in call.result.content
    assert "a PermissionRequest hook stopped the run" in call.result.content  # continue false


async def test_the_apps_continue_false_with_its_deny_stops_the_run(
    tmp_path: Path, app: App, home: Path
) -> None:
    result = await deny_run(tmp_path, app)
    assert (result.status, result.stop_reason) == ("stopped", "hook_stop")
    assert (result.stop_message or "").startswith("a PermissionRequest hook stopped the run")
    assert result.output is None  # the model was not asked again ("gave up" never came)


async def test_without_the_app_the_http_hooks_fail_open(tmp_path: Path, home: Path) -> None:
    model = ScriptedModel([tool_call("Bash", command="ls"), reply("done")])
    result = await cc_island(tmp_path, model).run("list")  # nothing listens on 17527
    assert result.status == "completed" and result.output == "done"
    assert any(v.error for d in result.decisions for v in d.votes)  # the errors are recorded
